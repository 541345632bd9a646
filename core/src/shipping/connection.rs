//! The transactions of a [`Shipping`] and groups of operations committed together
//! ([`Shipping::commit_together`]); the store's `Database` runs them.

use super::Shipping;
use crate::error::{Error, Result};
use crate::store::{Read, Tx};

impl Shipping {
    /// Copies what the write-ahead log holds into the database file, as far as readers
    /// let it, without waiting for a writer or blocking one (a passive checkpoint).
    /// Returns the log's size and how much of it is now in the file, in pages.
    ///
    /// # Errors
    /// `INTERNAL` on a storage failure; `BUSY` when another checkpoint is running.
    pub fn checkpoint(&self) -> Result<(i64, i64)> {
        self.not_in_group("a checkpoint")?;
        self.db.checkpoint()
    }

    /// Refuses `what` inside a group ([`Shipping::commit_together`]): an import swaps in
    /// what it wrote before the group commits, and an export would show what it has not
    /// committed yet.
    pub(super) fn not_in_group(&self, what: &str) -> Result<()> {
        if self.db.grouped() {
            return Err(Error::internal(format!("{what} cannot be taken inside a group of operations committed together")));
        }
        Ok(())
    }

    /// Runs `f` in one read transaction, so that all its statements see the same state
    /// of the database (a balance and its entries agree) whatever other connections to
    /// the file commit meanwhile. In a group, `f` runs in the group's transaction.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Read<'_>) -> Result<T>) -> Result<T> {
        self.db.read(f)
    }

    /// Runs `f`, a read of one statement, which sees what is committed when it runs: on
    /// PostgreSQL without a transaction around it (one round trip, not three).
    pub(crate) fn read_latest<T>(&self, f: impl FnOnce(&Read<'_>) -> Result<T>) -> Result<T> {
        self.db.read_latest(f)
    }

    /// Runs `f` in one write transaction, committed only if `f` succeeds; in a group, in
    /// a savepoint of the group's transaction, released only if `f` succeeds. The
    /// functions `f` calls that write take its [`Tx`].
    pub(crate) fn write<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        self.db.write(f)
    }

    /// Runs `work`, reads and writes of this service on this thread, as one transaction:
    /// committed when it returns `Ok`, rolled back whole when it fails or panics. Inside
    /// a group ([`Shipping::commit_together`]), a savepoint of the group's transaction.
    pub(crate) fn all_or_nothing<T>(&self, work: impl FnOnce() -> Result<T>) -> Result<T> {
        self.db.all_or_nothing(work)
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
        self.db.commit_together(work)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;

    /// A file database in a directory of its own, removed when the test ends.
    struct TempDb(crate::store::testing::TempDir);

    impl TempDb {
        fn new(name: &str) -> TempDb {
            TempDb(crate::store::testing::TempDir::new(&format!("group-{name}")))
        }
        fn open(&self) -> Shipping {
            Shipping::open(self.0 .0.join("group.db")).unwrap()
        }
    }

    use crate::shipping::testing::customer_body as customer;

    fn customers(shipping: &Shipping) -> i64 {
        shipping.read(|c| c.one("SELECT count(*) FROM customers", crate::store::args![], |r| r.get(0))).unwrap()
    }

    fn sequence(shipping: &Shipping, name: &str) -> Option<i64> {
        shipping.read(|c| c.row("SELECT last FROM id_sequences WHERE name = ?1", crate::store::args![name], |r| r.get(0))).unwrap()
    }

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
        assert!(shipping.db.lock().is_autocommit());
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
        let past = i64::from(crate::store::DEFAULT_AUTO_CHECKPOINT) + 500;
        let writes = |shipping: &Shipping| {
            for _ in 0..past {
                shipping.write(|tx| crate::store::next_id(tx, "counter")).unwrap();
            }
        };
        // Without an fsync per commit: the log is the same, the test quicker.
        let builder = |name: &str| Shipping::builder().path(db.0 .0.join(name)).synchronous(crate::Synchronous::Normal);
        // Each commit adds at least a page to the log.
        let manual = builder("manual.db").auto_checkpoint(0).open().unwrap();
        writes(&manual);
        let (log, done) = manual.checkpoint().unwrap();
        assert!(log >= past, "the log grew to {log} pages: no commit checkpointed it");
        assert_eq!(done, log, "with no reader, a checkpoint copies it all");
        let automatic = builder("automatic.db").open().unwrap();
        writes(&automatic);
        let (log, _) = automatic.checkpoint().unwrap();
        assert!(log < past, "commits checkpoint past the default's pages, and the log starts over: {log}");
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
