//! The connection of a service, its read and write transactions, and groups of
//! operations committed together.
//!
//! Outside a group, every read is one DEFERRED transaction and every write one IMMEDIATE
//! transaction. Inside a group, one IMMEDIATE transaction spans the group: each write is
//! a savepoint in it, released when the write succeeds and rolled back when it fails or
//! panics, and reads run in it directly. The group commits once, so that a server
//! answering many clients waits for the disk once per group instead of once per write.
//!
//! On PostgreSQL (the `postgres` feature) a service holds a pool of connections instead:
//! every read is a REPEATABLE READ READ ONLY transaction (one snapshot, as SQLite's),
//! every write a READ COMMITTED one on a connection of its own, so writes run in
//! parallel and PostgreSQL groups their commits itself; a group is then no more than its
//! writes, each committed on its own. Writes to one customer's data serialise on the
//! customer's row (`lock_customer`). A transaction's BEGIN is sent with its first
//! statement (one that runs none costs nothing), and a read of one statement
//! ([`Database::read_latest`]) runs outside any transaction.

use std::path::Path;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::ThreadId;

use rusqlite::Connection;

use super::event_log::{Journal, Listener, Stored};
use super::sql::{Conn, Read, Tx};
use super::Settings;
use crate::error::{Error, ErrorCategory, Result};

/// The connection, and the thread running a group on it, if any.
struct Db {
    conn: Connection,
    group: Option<ThreadId>,
}

/// A service's database: SQLite's one connection, or a pool of PostgreSQL connections;
/// and what runs after each commit that appended events, if anything.
pub(crate) struct Database(Backend, Option<Listener>);

enum Backend {
    Lite(Lite),
    #[cfg(feature = "postgres")]
    Pg(std::sync::Arc<super::pg::Pool>),
}

/// The SQLite database: its one connection, and the end of groups, which other threads
/// wait for.
struct Lite {
    db: Mutex<Db>,
    group_ended: Condvar,
}

/// The locked connection: for the thread running a group, or for anyone while no group runs.
pub(crate) struct Locked<'s>(MutexGuard<'s, Db>);

impl Locked<'_> {
    fn grouped(&self) -> bool {
        self.0.group.is_some()
    }
}

impl std::ops::Deref for Locked<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.0.conn
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.0.conn
    }
}

impl Database {
    /// The database of `conn`, which the caller has set up and migrated.
    pub(crate) fn new(conn: Connection) -> Database {
        Database(Backend::Lite(Lite { db: Mutex::new(Db { conn, group: None }), group_ended: Condvar::new() }), None)
    }

    /// Runs `listener` after each commit that appended events (a write, or a group of
    /// them), with those events, once the connection is free again: it may run
    /// operations of its own. Never for a write rolled back.
    pub(crate) fn listen(&mut self, listener: Listener) {
        self.1 = Some(listener);
    }

    /// The PostgreSQL database at `url`, with at most `pool_size` connections, brought
    /// to the current schema (under an advisory lock: several services may start at once).
    ///
    /// # Errors
    /// `INVALID_REQUEST` when `url` does not parse; `BUSY` when the database cannot be
    /// reached; `INTERNAL` when it holds another application's tables or a newer schema.
    #[cfg(feature = "postgres")]
    pub(crate) fn postgres(url: &str, pool_size: usize) -> Result<Database> {
        let pool = std::sync::Arc::new(super::pg::Pool::new(url, pool_size)?);
        pool.migrate()?;
        Ok(Database(Backend::Pg(pool), None))
    }

    /// Whether this is a PostgreSQL database (shared with other services).
    #[cfg(feature = "postgres")]
    pub(crate) fn is_postgres(&self) -> bool {
        matches!(self.0, Backend::Pg(_))
    }

    /// The SQLite database, for what only SQLite has (images, checkpoints).
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables, reason = "`what` names the refusal on PostgreSQL"))]
    fn lite(&self, what: &str) -> Result<&Lite> {
        match &self.0 {
            Backend::Lite(lite) => Ok(lite),
            #[cfg(feature = "postgres")]
            Backend::Pg(_) => Err(Error::new(
                ErrorCategory::InvalidRequest,
                format!("{what} is for SQLite databases; on PostgreSQL use its own tools (pg_dump, pg_restore)"),
            )),
        }
    }

    /// Opens the database at `path` (in memory without one), replaced by the image
    /// `bytes` when given, set up with `settings` and brought to the current schema.
    ///
    /// # Errors
    /// `INTERNAL` when the file cannot be opened, is another application's SQLite
    /// database (it is left as it was) or was written by a newer schema;
    /// `INVALID_REQUEST` on `bytes` when the image is refused; `BUSY` when another
    /// connection holds the file locked past the busy timeout.
    pub(crate) fn open(path: Option<&Path>, bytes: Option<&[u8]>, settings: Settings) -> Result<Database> {
        let unopened = |e: rusqlite::Error| Error::internal(format!("could not open the database: {e}"));
        // An image is checked whole before it replaces anything; in memory, the checked
        // copy is the database.
        let image = bytes.map(super::check_image).transpose()?;
        let mut conn = match (path, image) {
            (None, Some(image)) => image,
            (None, None) => Connection::open_in_memory().map_err(unopened)?,
            (Some(path), image) => {
                create_private(path)?;
                let mut conn = Connection::open(path).map_err(unopened)?;
                if let Some(image) = image {
                    super::restore(&mut conn, &image)?;
                }
                conn
            }
        };
        super::configure_with(&conn, settings)?;
        super::migrate(&mut conn)?;
        Ok(Database::new(conn))
    }

    /// The whole database as bytes (an SQLite file image).
    ///
    /// # Errors
    /// Only on a storage failure.
    pub(crate) fn serialize(&self) -> Result<Vec<u8>> {
        super::serialize(&mut self.lite("an export of the whole database")?.lock())
    }

    /// The SQLite connection, once no other thread runs a group on it (tests).
    #[cfg(test)]
    pub(crate) fn lock(&self) -> Locked<'_> {
        match &self.0 {
            Backend::Lite(lite) => lite.lock(),
            #[cfg(feature = "postgres")]
            Backend::Pg(_) => unreachable!("the tests that lock the connection run on SQLite"),
        }
    }
}

impl Lite {
    /// The connection, once no other thread runs a group on it.
    fn lock(&self) -> Locked<'_> {
        // A panic while holding the lock cannot leave a half-written transaction behind
        // (it rolls back on unwind), so the connection stays usable.
        let mut db = self.db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let me = std::thread::current().id();
        while db.group.is_some_and(|owner| owner != me) {
            db = self.group_ended.wait(db).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        Locked(db)
    }
}

impl Database {
    /// Copies what the write-ahead log holds into the database file, as far as readers
    /// let it, without waiting for a writer or blocking one (a passive checkpoint).
    /// Returns the log's size and how much of it is now in the file, in pages.
    ///
    /// # Errors
    /// `INTERNAL` on a storage failure; `BUSY` when another checkpoint is running;
    /// `INVALID_REQUEST` on PostgreSQL, which checkpoints by itself.
    pub(crate) fn checkpoint(&self) -> Result<(i64, i64)> {
        self.lite("a checkpoint")?.checkpoint()
    }

    /// Empties SQLite's write-ahead log as far as readers let it (a truncating
    /// checkpoint), so that it no longer holds the frames of earlier writes. Best effort;
    /// nothing on PostgreSQL.
    pub(crate) fn truncate_log(&self) {
        match &self.0 {
            Backend::Lite(lite) => lite.truncate_log(),
            #[cfg(feature = "postgres")]
            Backend::Pg(_) => {}
        }
    }

    /// Whether a group of operations is running (on this thread: others wait for it).
    /// Never on PostgreSQL, where a group's writes commit each on its own.
    pub(crate) fn grouped(&self) -> bool {
        match &self.0 {
            Backend::Lite(lite) => lite.grouped(),
            #[cfg(feature = "postgres")]
            Backend::Pg(_) => false,
        }
    }

    /// Runs `f` in one read transaction, so that all its statements see the same state
    /// of the database (a balance and its entries agree) whatever other connections
    /// commit meanwhile. In a group, `f` runs in the group's transaction.
    ///
    /// # Errors
    /// What `f` returns, or a storage failure.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Read<'_>) -> Result<T>) -> Result<T> {
        match &self.0 {
            Backend::Lite(lite) => lite.read(f),
            #[cfg(feature = "postgres")]
            Backend::Pg(pool) => in_pg_transaction(pool, PgTransaction::Read, None, |conn| f(&Read::new(conn))),
        }
    }

    /// Runs `f`, a read of one statement, which sees what is committed when it runs (or,
    /// inside a transaction of this thread, what that transaction sees). On PostgreSQL
    /// no transaction is opened around it: one round trip, not three. A read of several
    /// statements that must agree with each other takes [`Database::read`].
    ///
    /// # Errors
    /// What `f` returns, or a storage failure.
    pub(crate) fn read_latest<T>(&self, f: impl FnOnce(&Read<'_>) -> Result<T>) -> Result<T> {
        match &self.0 {
            Backend::Lite(lite) => lite.read(f),
            #[cfg(feature = "postgres")]
            Backend::Pg(pool) => in_pg_transaction(pool, PgTransaction::Latest, None, |conn| f(&Read::new(conn))),
        }
    }

    /// Runs `f` in one write transaction, committed only if `f` succeeds; in a group,
    /// in a savepoint of the group's transaction, released only if `f` succeeds. The
    /// [`Tx`] `f` gets stands for that transaction: the functions it calls that write
    /// take it.
    ///
    /// # Errors
    /// What `f` returns, `BUSY` when another connection holds the write lock past the
    /// busy timeout (or, on PostgreSQL, the connection was lost), or a storage failure;
    /// then nothing of `f` was written.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        match &self.0 {
            Backend::Lite(lite) => lite.write(f, self.1.as_ref()),
            #[cfg(feature = "postgres")]
            Backend::Pg(pool) => in_pg_transaction(pool, PgTransaction::Write, self.1.as_ref(), |conn| f(&Tx::new(conn))),
        }
    }

    /// Runs `work` with one transaction for all the writes it makes on this thread, and
    /// commits it once `work` returns; other threads wait until the group ends. On
    /// PostgreSQL, `work` runs as it is: each write commits on its own.
    ///
    /// # Errors
    /// `BUSY` when another process holds the database's write lock past the busy
    /// timeout; `INTERNAL` on a storage failure at the start or the commit, or when
    /// called again inside `work`. Then nothing of `work` was written.
    pub(crate) fn commit_together<T>(&self, work: impl FnOnce() -> T) -> Result<T> {
        match &self.0 {
            Backend::Lite(lite) => lite.commit_together(work, self.1.as_ref()),
            #[cfg(feature = "postgres")]
            Backend::Pg(_) => Ok(work()),
        }
    }

    /// Runs `work`, which reads and writes on this thread, as one transaction: committed
    /// if it returns `Ok`, rolled back whole if it returns an error or panics. Inside a
    /// group ([`Database::commit_together`]), a savepoint of the group's transaction.
    ///
    /// # Errors
    /// What `work` returns; `BUSY` or `INTERNAL` as for [`Database::write`]. Then
    /// nothing of `work` was written.
    pub(crate) fn all_or_nothing<T>(&self, work: impl FnOnce() -> Result<T>) -> Result<T> {
        match &self.0 {
            Backend::Lite(lite) if lite.grouped() => lite.savepoint(work),
            Backend::Lite(lite) => lite.commit_together(|| lite.savepoint(work), self.1.as_ref())?,
            #[cfg(feature = "postgres")]
            Backend::Pg(pool) => in_pg_transaction(pool, PgTransaction::Write, self.1.as_ref(), |_| work()),
        }
    }
}

/// What [`in_pg_transaction`] runs in.
#[cfg(feature = "postgres")]
#[derive(Clone, Copy, PartialEq, Eq)]
enum PgTransaction {
    /// One snapshot, read only.
    Read,
    /// A write: READ COMMITTED, the customer's row locked by the operation itself.
    Write,
    /// One statement, outside any transaction: it sees what is committed when it runs.
    Latest,
}

/// Runs `f` on a connection of `pool` inside a transaction of `kind`, committed only if
/// `f` succeeds. Inside a transaction this thread has open on `pool` already, `f` runs
/// in it instead: a read directly, a write in a savepoint, released only if `f`
/// succeeds. A connection lost at the commit leaves the outcome unknown: that is a
/// `BUSY` of its own, telling the client to retry with its idempotency key. A write
/// with a `listener` runs it after the commit, with the events it appended.
#[cfg(feature = "postgres")]
fn in_pg_transaction<T>(
    pool: &std::sync::Arc<super::pg::Pool>,
    kind: PgTransaction,
    listener: Option<&Listener>,
    f: impl FnOnce(Conn<'_>) -> Result<T>,
) -> Result<T> {
    if let Some(open) = super::pg::Open::on(pool) {
        if kind != PgTransaction::Write {
            return f(Conn::Pg(&open));
        }
        open.batch("SAVEPOINT operation")?;
        return match f(Conn::Pg(&open)) {
            Ok(value) => open.batch("RELEASE operation").map(|()| value),
            Err(e) => {
                // A connection that cannot roll back is closed with its transaction.
                let _ = open.roll_back_to("operation");
                Err(e)
            }
        };
    }
    let conn = std::rc::Rc::new(pool.get()?);
    conn.begin(match kind {
        PgTransaction::Latest => return f(Conn::Pg(&conn)),
        PgTransaction::Read => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        PgTransaction::Write => "BEGIN ISOLATION LEVEL READ COMMITTED",
    });
    conn.in_transaction.set(true);
    let open = super::pg::Open::mark(&conn);
    let journal = Journal::start(listener.is_some() && kind == PgTransaction::Write);
    let value = f(Conn::Pg(&conn)).and_then(|value| Ok((value, written(&journal, listener, &Tx::new(Conn::Pg(&conn)))?)));
    drop(journal);
    drop(open);
    match value {
        Ok((value, events)) => {
            conn.end("COMMIT")?;
            conn.in_transaction.set(false);
            tell(listener, &events);
            Ok(value)
        }
        Err(e) => {
            if conn.end("ROLLBACK").is_ok() {
                conn.in_transaction.set(false);
            }
            Err(e)
        }
    }
}

impl Lite {
    /// Copies what the write-ahead log holds into the database file, as far as readers
    /// let it, without waiting for a writer or blocking one (a passive checkpoint).
    /// Returns the log's size and how much of it is now in the file, in pages.
    ///
    /// # Errors
    /// `INTERNAL` on a storage failure; `BUSY` when another checkpoint is running.
    fn checkpoint(&self) -> Result<(i64, i64)> {
        let conn = self.lock();
        let (busy, log, done): (i64, i64, i64) =
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        if busy != 0 {
            return Err(Error::new(ErrorCategory::Busy, "another checkpoint of this database is running; try again"));
        }
        Ok((log, done))
    }

    /// Empties the write-ahead log as far as readers let it (a truncating checkpoint),
    /// so that it no longer holds the frames of earlier writes. Best effort.
    fn truncate_log(&self) {
        let _ = self.lock().query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }

    /// Whether a group of operations is running (on this thread: others wait for it).
    fn grouped(&self) -> bool {
        self.lock().grouped()
    }

    /// Runs `f` in one read transaction, so that all its statements see the same state
    /// of the database (a balance and its entries agree) whatever other connections to
    /// the file commit meanwhile. In a group, `f` runs in the group's transaction.
    ///
    /// # Errors
    /// What `f` returns, or a storage failure.
    fn read<T>(&self, f: impl FnOnce(&Read<'_>) -> Result<T>) -> Result<T> {
        let conn = self.lock();
        if conn.grouped() {
            return f(&Read::new(Conn::Lite(&conn)));
        }
        // DEFERRED: the snapshot is taken at the first SELECT and no write lock is taken.
        // Cached statements rather than rusqlite's `Transaction`, which parses BEGIN and
        // COMMIT on every call: that was 4% of reading a shipment.
        conn.prepare_cached("BEGIN DEFERRED")?.execute([])?;
        let read = EndOnDrop(&conn, "ROLLBACK");
        let value = f(&Read::new(Conn::Lite(&conn)))?;
        conn.prepare_cached("COMMIT")?.execute([])?;
        drop(read);
        Ok(value)
    }

    /// Runs `f` in one IMMEDIATE transaction, committed only if `f` succeeds; in a group,
    /// in a savepoint of the group's transaction, released only if `f` succeeds. The
    /// [`Tx`] `f` gets stands for that transaction: the functions it calls that write
    /// take it.
    ///
    /// # Errors
    /// What `f` returns, `BUSY` when another connection holds the write lock past the
    /// busy timeout, or a storage failure; then nothing of `f` was written.
    fn write<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>, listener: Option<&Listener>) -> Result<T> {
        let conn = self.lock();
        if conn.grouped() {
            if conn.is_autocommit() {
                // SQLite rolled the group's transaction back (on a full disk, say): a
                // savepoint now would commit on its own, outside the group.
                return Err(Error::internal("the transaction of this group of operations ended early"));
            }
            conn.prepare_cached("SAVEPOINT operation")?.execute([])?;
            let undo = EndOnDrop(&conn, "ROLLBACK TO operation; RELEASE operation");
            let value = f(&Tx::new(Conn::Lite(&conn)))?;
            conn.prepare_cached("RELEASE operation")?.execute([])?;
            std::mem::forget(undo);
            return Ok(value);
        }
        conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        let undo = EndOnDrop(&conn, "ROLLBACK");
        let journal = Journal::start(listener.is_some());
        let value = f(&Tx::new(Conn::Lite(&conn)))?;
        std::mem::forget(undo);
        commit(conn, journal, listener).map(|()| value)
    }

    /// Runs `work` with one transaction for all the writes it makes on this thread, and
    /// commits it once `work` returns; other threads wait until the group ends.
    ///
    /// # Errors
    /// `BUSY` when another process holds the database's write lock past the busy
    /// timeout; `INTERNAL` on a storage failure at the start or the commit, or when
    /// called again inside `work`. Then nothing of `work` was written.
    fn commit_together<T>(&self, work: impl FnOnce() -> T, listener: Option<&Listener>) -> Result<T> {
        {
            let mut db = self.lock();
            if db.grouped() {
                return Err(Error::internal("a group of operations cannot start inside another"));
            }
            db.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
            db.0.group = Some(std::thread::current().id());
        }
        let end = GroupEnd(self);
        let journal = Journal::start(listener.is_some());
        let value = work();
        self.end_group(end, journal, listener).map(|()| value)
    }

    /// Commits the group `end` stands for, then tells `listener` of its events (after
    /// the group ended, so that the listener may run operations). Not generic, so that
    /// each kind of work adds only its own code to the WASM package.
    #[inline(never)]
    fn end_group(&self, end: GroupEnd<'_>, journal: Journal, listener: Option<&Listener>) -> Result<()> {
        let committed = {
            let db = self.lock();
            if db.is_autocommit() {
                Err(Error::internal("the transaction of this group of operations ended early"))
            } else {
                written(&journal, listener, &Tx::new(Conn::Lite(&db))).and_then(|events| {
                    db.prepare_cached("COMMIT").and_then(|mut commit| commit.execute([])).map_err(Error::from)?;
                    Ok(events)
                })
            }
        };
        drop(journal);
        drop(end);
        tell(listener, &committed?);
        Ok(())
    }
}

impl Lite {
    /// Runs `work` inside the group this thread runs, in a savepoint of its own: released
    /// when `work` returns `Ok`, rolled back when it fails or panics.
    fn savepoint<T>(&self, work: impl FnOnce() -> Result<T>) -> Result<T> {
        self.lock().prepare_cached("SAVEPOINT together")?.execute([])?;
        let undo = Undo(self);
        let value = work()?;
        self.lock().prepare_cached("RELEASE together")?.execute([])?;
        std::mem::forget(undo);
        Ok(value)
    }
}

/// Commits the write transaction `conn` holds (rolled back should the commit fail),
/// then, with the connection free again, tells `listener` of its events. Not generic,
/// so that each write adds only its own code to the WASM package.
#[inline(never)]
fn commit(conn: Locked<'_>, journal: Journal, listener: Option<&Listener>) -> Result<()> {
    let undo = EndOnDrop(&conn, "ROLLBACK");
    let events = written(&journal, listener, &Tx::new(Conn::Lite(&conn)))?;
    drop(journal);
    conn.prepare_cached("COMMIT")?.execute([])?;
    std::mem::forget(undo);
    drop(conn);
    tell(listener, &events);
    Ok(())
}

/// The events the transaction of `tx` appended, read back before it commits, when a
/// `listener` waits for them.
fn written(journal: &Journal, listener: Option<&Listener>, tx: &Tx<'_>) -> Result<Vec<Stored>> {
    match listener {
        Some(_) => journal.written(tx),
        None => Ok(Vec::new()),
    }
}

/// Gives `listener` the events of a commit, if there were any.
fn tell(listener: Option<&Listener>, events: &[Stored]) {
    if let (Some(listener), false) = (listener, events.is_empty()) {
        listener(events);
    }
}

/// Rolls back the savepoint of [`Lite::savepoint`] unless forgotten.
struct Undo<'s>(&'s Lite);

impl Drop for Undo<'_> {
    fn drop(&mut self) {
        let db = self.0.lock();
        if !db.is_autocommit() {
            let _ = db.execute_batch("ROLLBACK TO together; RELEASE together");
        }
    }
}

/// Runs `sql` on drop unless forgotten: undoes a transaction or savepoint whose work
/// failed or panicked.
struct EndOnDrop<'c>(&'c Connection, &'static str);

impl Drop for EndOnDrop<'_> {
    fn drop(&mut self) {
        if !self.0.is_autocommit() {
            // Nothing to report to: a connection left in a transaction shows at the next BEGIN.
            let _ = self.0.execute_batch(self.1);
        }
    }
}

/// Ends a group however its work ended: rolls back what was not committed, and lets
/// other threads at the connection again.
struct GroupEnd<'s>(&'s Lite);

impl Drop for GroupEnd<'_> {
    fn drop(&mut self) {
        let mut db = self.0.lock();
        if !db.is_autocommit() {
            let _ = db.execute_batch("ROLLBACK");
        }
        db.0.group = None;
        drop(db);
        self.0.group_ended.notify_all();
    }
}

/// Creates the database file at `path`, empty and readable by its owner alone (mode
/// 0600), unless it exists: SQLite would create it with the process's umask (often
/// readable by every local user), and it gives the `-wal` and `-shm` files the mode of
/// the database file. A file that exists keeps its mode. `:memory:` and `file:` URIs are
/// SQLite's own names, left to it.
#[cfg(unix)]
fn create_private(path: &Path) -> Result<()> {
    let name = path.to_string_lossy();
    if name == ":memory:" || name.starts_with("file:") {
        return Ok(());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::internal(format!("could not create the database {}: {e}", path.display()))),
    }
}

/// Without Unix modes (Windows; wasm32, where the path names a file of the browser's
/// private file system that only SQLite's VFS reaches), SQLite creates the file.
#[cfg(not(unix))]
fn create_private(_path: &Path) -> Result<()> {
    Ok(())
}
