//! The connection of a [`Shipping`], its read and write transactions, and groups of
//! operations committed together ([`Shipping::commit_together`]).
//!
//! Outside a group, every read is one DEFERRED transaction and every write one IMMEDIATE
//! transaction. Inside a group, one IMMEDIATE transaction spans the group: each write is
//! a savepoint in it, released when the write succeeds and rolled back when it fails or
//! panics, and reads run in it directly. The group commits once, so that a server
//! answering many clients waits for the disk once per group instead of once per write.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::ThreadId;

use rusqlite::Connection;

use super::Shipping;
use crate::error::{Error, Result};

/// The connection, and the thread running a group on it, if any.
pub(super) struct Db {
    conn: Connection,
    group: Option<ThreadId>,
}

/// The connection and the end of groups, which other threads wait for.
pub(super) struct Connected {
    db: Mutex<Db>,
    group_ended: Condvar,
}

impl Connected {
    pub(super) fn new(conn: Connection) -> Connected {
        Connected { db: Mutex::new(Db { conn, group: None }), group_ended: Condvar::new() }
    }
}

/// The locked connection: for the thread running a group, or for anyone while no group runs.
pub(super) struct Locked<'s>(MutexGuard<'s, Db>);

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

impl Shipping {
    pub(super) fn lock(&self) -> Locked<'_> {
        // A panic while holding the lock cannot leave a half-written transaction behind
        // (it rolls back on unwind), so the connection stays usable.
        let mut db = self.conn.db.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let me = std::thread::current().id();
        while db.group.is_some_and(|owner| owner != me) {
            db = self.conn.group_ended.wait(db).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        Locked(db)
    }

    /// Copies what the write-ahead log holds into the database file, as far as readers
    /// let it, without waiting for a writer or blocking one (a passive checkpoint).
    /// Returns the log's size and how much of it is now in the file, in pages.
    ///
    /// # Errors
    /// `INTERNAL` on a storage failure; `BUSY` when another checkpoint is running.
    pub fn checkpoint(&self) -> Result<(i64, i64)> {
        self.not_in_group("a checkpoint")?;
        let conn = self.lock();
        let (busy, log, done): (i64, i64, i64) =
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        if busy != 0 {
            return Err(Error::new(crate::ErrorCategory::Busy, "another checkpoint of this database is running; try again"));
        }
        Ok((log, done))
    }

    /// Refuses `what` inside a group ([`Shipping::commit_together`]): an import swaps in
    /// what it wrote before the group commits, and an export would show what it has not
    /// committed yet.
    pub(super) fn not_in_group(&self, what: &str) -> Result<()> {
        if self.lock().grouped() {
            return Err(Error::internal(format!("{what} cannot be taken inside a group of operations committed together")));
        }
        Ok(())
    }

    /// Runs `f` in one read transaction, so that all its statements see the same state
    /// of the database (a balance and its entries agree) whatever other connections to
    /// the file commit meanwhile. In a group, `f` runs in the group's transaction.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.lock();
        if conn.grouped() {
            return f(&conn);
        }
        // DEFERRED: the snapshot is taken at the first SELECT and no write lock is taken.
        // Cached statements rather than rusqlite's `Transaction`, which parses BEGIN and
        // COMMIT on every call: that was 4% of reading a shipment.
        conn.prepare_cached("BEGIN DEFERRED")?.execute([])?;
        let read = EndOnDrop(&conn, "ROLLBACK");
        let value = f(&conn)?;
        conn.prepare_cached("COMMIT")?.execute([])?;
        drop(read);
        Ok(value)
    }

    /// Runs `f` in one IMMEDIATE transaction, committed only if `f` succeeds; in a group,
    /// in a savepoint of the group's transaction, released only if `f` succeeds. `f`'s
    /// connection is inside that transaction: the functions it calls that write take the
    /// connection as `tx`.
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.lock();
        if conn.grouped() {
            if conn.is_autocommit() {
                // SQLite rolled the group's transaction back (on a full disk, say): a
                // savepoint now would commit on its own, outside the group.
                return Err(Error::internal("the transaction of this group of operations ended early"));
            }
            conn.prepare_cached("SAVEPOINT operation")?.execute([])?;
            let undo = EndOnDrop(&conn, "ROLLBACK TO operation; RELEASE operation");
            let value = f(&conn)?;
            conn.prepare_cached("RELEASE operation")?.execute([])?;
            std::mem::forget(undo);
            return Ok(value);
        }
        conn.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        let undo = EndOnDrop(&conn, "ROLLBACK");
        let value = f(&conn)?;
        conn.prepare_cached("COMMIT")?.execute([])?;
        std::mem::forget(undo);
        Ok(value)
    }

    /// Runs `work` (operations of this service, called on this thread) with one commit
    /// for all their writes, and returns what it returns once they are committed.
    ///
    /// Each operation keeps its own all-or-nothing: one that fails leaves no write
    /// behind, and the others are unaffected. Nothing of the group is visible to other
    /// connections before the commit, and an answer of `work` must not be given to
    /// anyone before this returns `Ok`: if the commit fails, none of the group's writes
    /// happened. Other threads using this service wait until the group ends.
    ///
    /// This is how `consign serve` waits for the disk once per group of concurrent
    /// writes rather than once per write under [`crate::Synchronous::Full`].
    ///
    /// ```
    /// # let customer = |email: &str| format!(
    /// #     r#"{{"profileCode": "Default", "email": "{email}", "password": "correct horse",
    /// #         "mailingAddress": {a}, "billingAddress": {a}, "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#,
    /// #     a = r#"{"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "", "city": "Springfield",
    /// #         "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"}"#);
    /// let shipping = consign::Shipping::open_in_memory()?;
    /// let answers = shipping.commit_together(|| {
    ///     ["a@example.com", "b@example.com", "a@example.com"]
    ///         .map(|email| shipping.handle("POST", "/restapi/v1/customers", &customer(email)).status)
    /// })?;
    /// // The third fails alone: its e-mail was taken by a write of the same group.
    /// assert_eq!(answers, [201, 201, 409]);
    /// # Ok::<(), consign::Error>(())
    /// ```
    ///
    /// # Errors
    /// `BUSY` when another process holds the database's write lock past the busy
    /// timeout; `INTERNAL` on a storage failure at the start or the commit, or when
    /// called again inside `work`. Then nothing of `work` was written.
    pub fn commit_together<T>(&self, work: impl FnOnce() -> T) -> Result<T> {
        {
            let mut db = self.lock();
            if db.grouped() {
                return Err(Error::internal("a group of operations cannot start inside another"));
            }
            db.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
            db.0.group = Some(std::thread::current().id());
        }
        let end = GroupEnd(self);
        let value = work();
        let committed = {
            let db = self.lock();
            if db.is_autocommit() {
                Err(Error::internal("the transaction of this group of operations ended early"))
            } else {
                db.prepare_cached("COMMIT").and_then(|mut commit| commit.execute([])).map(drop).map_err(Error::from)
            }
        };
        drop(end);
        committed.map(|()| value)
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
struct GroupEnd<'s>(&'s Shipping);

impl Drop for GroupEnd<'_> {
    fn drop(&mut self) {
        let mut db = self.0.lock();
        if !db.is_autocommit() {
            let _ = db.execute_batch("ROLLBACK");
        }
        db.0.group = None;
        drop(db);
        self.0.conn.group_ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// A file database in a directory of its own, removed when the test ends.
    struct TempDb(std::path::PathBuf);

    impl TempDb {
        fn new(name: &str) -> TempDb {
            let dir = std::env::temp_dir().join(format!("consign-group-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDb(dir)
        }
        fn open(&self) -> Shipping {
            Shipping::open(self.0.join("group.db")).unwrap()
        }
    }

    impl Drop for TempDb {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn customer(email: &str) -> String {
        let address = r#"{"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "", "city": "Springfield",
            "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"}"#;
        format!(
            r#"{{"profileCode": "Default", "email": "{email}", "password": "correct horse", "mailingAddress": {address},
                "billingAddress": {address}, "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#
        )
    }

    fn customers(shipping: &Shipping) -> i64 {
        shipping.read(|c| Ok(c.query_row("SELECT count(*) FROM customers", [], |r| r.get(0))?)).unwrap()
    }

    fn sequence(shipping: &Shipping, name: &str) -> Option<i64> {
        shipping.read(|c| Ok(c.query_row("SELECT last FROM id_sequences WHERE name = ?1", [name], |r| r.get(0)).optional()?)).unwrap()
    }

    use rusqlite::OptionalExtension;

    #[test]
    fn a_group_is_invisible_to_other_connections_until_it_commits() {
        let db = TempDb::new("visible");
        let (writer, reader) = (db.open(), db.open());
        let seen_inside = writer
            .commit_together(|| {
                assert_eq!(writer.handle("POST", "/restapi/v1/customers", &customer("a@example.com")).status, 201);
                assert_eq!(customers(&writer), 1, "the group reads its own writes");
                customers(&reader)
            })
            .unwrap();
        assert_eq!(seen_inside, 0);
        assert_eq!(customers(&reader), 1);
    }

    #[test]
    fn a_write_that_fails_or_panics_in_a_group_leaves_nothing_and_the_others_commit() {
        let db = TempDb::new("savepoints");
        let shipping = db.open();
        shipping
            .commit_together(|| {
                shipping.write(|tx| crate::store::next_id(tx, "kept_before")).unwrap();
                let failed = shipping.write(|tx| {
                    crate::store::next_id(tx, "failed")?;
                    Err::<(), _>(Error::invalid("x", "refused"))
                });
                assert!(failed.is_err());
                let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    shipping.write(|tx| -> Result<()> {
                        crate::store::next_id(tx, "panicked")?;
                        panic!("an operation panics half-way");
                    })
                }));
                assert!(panicked.is_err());
                shipping.write(|tx| crate::store::next_id(tx, "kept_after")).unwrap();
            })
            .unwrap();
        let other = db.open();
        assert_eq!(sequence(&other, "kept_before"), Some(1));
        assert_eq!(sequence(&other, "kept_after"), Some(1));
        assert_eq!(sequence(&other, "failed"), None);
        assert_eq!(sequence(&other, "panicked"), None);
    }

    #[test]
    fn a_group_whose_work_panics_writes_nothing_and_the_service_goes_on() {
        let db = TempDb::new("panics");
        let shipping = db.open();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            shipping.commit_together(|| {
                assert_eq!(shipping.handle("POST", "/restapi/v1/customers", &customer("a@example.com")).status, 201);
                panic!("the caller's work panics before the commit");
            })
        }));
        assert!(outcome.is_err());
        assert_eq!(customers(&shipping), 0);
        assert!(shipping.lock().is_autocommit());
        assert_eq!(shipping.handle("POST", "/restapi/v1/customers", &customer("a@example.com")).status, 201);
        assert_eq!(customers(&db.open()), 1);
    }

    #[test]
    fn groups_do_not_nest_and_refuse_imports_and_exports() {
        let shipping = Shipping::open_in_memory().unwrap();
        let refused = shipping
            .commit_together(|| {
                let nested = shipping.commit_together(|| ()).unwrap_err();
                let export = shipping.export_database().unwrap_err();
                let catalog = shipping.import_catalog(&shipping.export_catalog().unwrap()).unwrap_err();
                [nested, export, catalog].map(|e| e.category())
            })
            .unwrap();
        assert_eq!(refused, [crate::ErrorCategory::Internal; 3]);
        assert!(shipping.export_database().is_ok(), "after the group, exports work again");
    }

    #[test]
    fn commits_checkpoint_the_log_unless_told_not_to_and_checkpoint_does_it_then() {
        let db = TempDb::new("checkpoints");
        let writes = |shipping: &Shipping| {
            for _ in 0..1500 {
                shipping.write(|tx| crate::store::next_id(tx, "counter")).unwrap();
            }
        };
        // Each commit adds at least a page to the log.
        let manual = Shipping::builder().path(db.0.join("manual.db")).auto_checkpoint(0).open().unwrap();
        writes(&manual);
        let (log, done) = manual.checkpoint().unwrap();
        assert!(log >= 1500, "the log grew to {log} pages: no commit checkpointed it");
        assert_eq!(done, log, "with no reader, a checkpoint copies it all");
        let automatic = db.open();
        writes(&automatic);
        let (log, _) = automatic.checkpoint().unwrap();
        assert!(log < 1500, "commits checkpoint past 1,000 pages, and the log starts over: {log}");
    }

    #[test]
    fn other_threads_wait_for_the_group_to_end() {
        let db = TempDb::new("threads");
        let shipping = std::sync::Arc::new(db.open());
        let (done, finished) = mpsc::channel();
        let other = std::sync::Arc::clone(&shipping);
        shipping
            .commit_together(|| {
                assert_eq!(shipping.handle("POST", "/restapi/v1/customers", &customer("a@example.com")).status, 201);
                std::thread::spawn(move || {
                    let status = other.handle("POST", "/restapi/v1/customers", &customer("a@example.com")).status;
                    done.send(status).unwrap();
                });
                // Had the other thread's write joined the group, it would answer now.
                assert!(finished.recv_timeout(Duration::from_millis(200)).is_err(), "the other thread waits");
            })
            .unwrap();
        // It ran after the commit, on its own: the e-mail was taken.
        assert_eq!(finished.recv().unwrap(), 409);
        assert_eq!(customers(&shipping), 1);
    }
}
