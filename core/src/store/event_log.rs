//! The event log, per database: the store's side of the event feed (`crate::events`).
//!
//! An event is numbered in the statement that writes it: the customer's newest event
//! number + 1, so that one customer's events are numbered 1, 2, 3... in the order their
//! transactions commit. On SQLite the write transaction holds the database's one write
//! lock; on PostgreSQL the customer's row is locked first (`FOR UPDATE`), so that two
//! transactions of one customer number their events one after the other, and the second
//! (which reads after the first commits) continues from the first's newest. Both
//! statements are held back and sent with the operation's next statement or its commit:
//! appending an event costs no round trip of its own.
//!
//! The purge removes the events older than a cutoff, the oldest first, but never a
//! customer's newest event: the next one is numbered from it. SQLite walks the rowids of
//! `events`, the order events were written in, and stops at the first young one (what
//! it reads is bounded by `at_most` and the number of customers whose newest event is
//! old); PostgreSQL finds the oldest by `events_by_time`.

use super::sql::Conn;
use super::{args, Tx};
use crate::error::Result;

/// The statement that appends an event numbered after the customer's newest.
const APPEND: &str = "INSERT INTO events (customer_id, id, type, type_bit, subject_id, created_at, data)
     VALUES (?1, (SELECT COALESCE(MAX(id), 0) + 1 FROM events WHERE customer_id = ?1), ?2, ?3, ?4, ?5, ?6)";

/// Appends to `customer_id`'s events one of type `kind` (its bit `bit`) about
/// `subject_id`, at `created_at`, with `data` (JSON), numbered after the customer's newest.
///
/// # Errors
/// A storage failure (on PostgreSQL, at the statement or commit it is sent with).
pub(crate) fn append(tx: &Tx<'_>, customer_id: &str, kind: &str, bit: i64, subject_id: &str, created_at: &str, data: &str) -> Result<()> {
    follow(tx, customer_id)?;
    #[cfg(feature = "postgres")]
    if let Conn::Pg(_) = tx.conn() {
        tx.execute_later("SELECT 1 FROM customers WHERE id = ?1 FOR UPDATE", args![customer_id])?;
    }
    tx.execute_later(APPEND, args![customer_id, kind, bit, subject_id, created_at, data])
}

/// Removes at most `at_most` events created before `cutoff` (a timestamp as events store
/// it), the oldest first, keeping every customer's newest; returns how many it removed.
///
/// # Errors
/// A storage failure.
pub(crate) fn purge(tx: &Tx<'_>, cutoff: &str, at_most: u32) -> Result<u64> {
    let removed = match tx.conn() {
        Conn::Lite(_) => {
            let doomed = oldest_rowids(tx, cutoff, at_most)?;
            for rowid in &doomed {
                tx.execute("DELETE FROM events WHERE rowid = ?1", args![rowid])?;
            }
            doomed.len()
        }
        #[cfg(feature = "postgres")]
        Conn::Pg(_) => tx.execute(
            "DELETE FROM events WHERE (customer_id, id) IN (
                 SELECT customer_id, id FROM events old WHERE created_at < ?1
                     AND id < (SELECT MAX(newest.id) FROM events newest WHERE newest.customer_id = old.customer_id)
                 ORDER BY created_at LIMIT ?2)",
            args![cutoff, i64::from(at_most)],
        )?,
    };
    Ok(removed as u64)
}

/// Rows read per statement while the SQLite purge walks the rowids.
const WALK: i64 = 512;

/// The rowids of at most `at_most` events created before `cutoff`, the oldest first,
/// none a customer's newest (SQLite).
fn oldest_rowids(tx: &Tx<'_>, cutoff: &str, at_most: u32) -> Result<Vec<i64>> {
    let wanted = at_most as usize;
    let mut doomed = Vec::new();
    let mut after = 0;
    loop {
        let page: Vec<(i64, String, bool)> = tx.rows(
            "SELECT rowid, created_at, id < (SELECT MAX(newest.id) FROM events newest WHERE newest.customer_id = events.customer_id)
             FROM events WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
            args![after, WALK],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
        let full = page.len() as i64 == WALK;
        for (rowid, created_at, removable) in page {
            if created_at.as_str() >= cutoff || doomed.len() == wanted {
                return Ok(doomed);
            }
            if removable {
                doomed.push(rowid);
            }
            after = rowid;
        }
        if !full {
            return Ok(doomed);
        }
    }
}

/// An event as stored, read back for the listener of commits.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    /// The customer whose feed holds it.
    pub customer_id: String,
    /// Its number in that feed.
    pub id: i64,
    /// Its type's name.
    pub kind: String,
    /// What changed.
    pub subject_id: String,
    /// When.
    pub created_at: String,
    /// The subject's view after the change, JSON.
    pub data: String,
}

/// What a service runs after each commit that appended events, with those events.
pub(crate) type Listener = std::sync::Arc<dyn Fn(&[Stored]) + Send + Sync>;

std::thread_local! {
    /// The customers whose feeds the write transaction of this thread appended to, with
    /// the newest event number each had before: kept only while a [`Journal`] follows
    /// the transaction (the service has a listener).
    static JOURNAL: std::cell::RefCell<Option<Vec<(String, i64)>>> = const { std::cell::RefCell::new(None) };
}

/// Follows the events an outermost write transaction (or a group of them) appends, for
/// the listener of commits: each customer's newest event number is read when the
/// transaction first appends to its feed (on PostgreSQL after locking the customer's
/// row, so that no other transaction appends to it until this one ends), and the
/// events after it are read back before the commit ([`Journal::written`]). A
/// savepoint rolled back takes its events with it. Costs nothing without a listener.
pub(crate) struct Journal {
    following: bool,
}

impl Journal {
    /// Starts following this thread's write transaction when `following` (the service
    /// has a listener).
    pub(crate) fn start(following: bool) -> Journal {
        if following {
            JOURNAL.with(|j| *j.borrow_mut() = Some(Vec::new()));
        }
        Journal { following }
    }

    /// The events the transaction of `tx` appended, read back in it before it commits:
    /// customer by customer in the order they were first written to, each in order.
    ///
    /// # Errors
    /// A storage failure.
    pub(crate) fn written(&self, tx: &Tx<'_>) -> Result<Vec<Stored>> {
        let floors = JOURNAL.with(|j| j.borrow().clone()).unwrap_or_default();
        let mut events = Vec::new();
        for (customer_id, floor) in floors {
            events.extend(tx.rows(
                "SELECT id, type, subject_id, created_at, data FROM events WHERE customer_id = ?1 AND id > ?2 ORDER BY id",
                args![customer_id, floor],
                |r| {
                    Ok(Stored {
                        customer_id: customer_id.clone(),
                        id: r.get(0)?,
                        kind: r.get(1)?,
                        subject_id: r.get(2)?,
                        created_at: r.get(3)?,
                        data: r.get(4)?,
                    })
                },
            )?);
        }
        Ok(events)
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        if self.following {
            JOURNAL.with(|j| *j.borrow_mut() = None);
        }
    }
}

/// When a [`Journal`] follows this thread's transaction and `customer_id`'s feed is
/// appended to for the first time in it: its newest event number before.
fn follow(tx: &Tx<'_>, customer_id: &str) -> Result<()> {
    let first = JOURNAL.with(|j| j.borrow().as_ref().map(|floors| !floors.iter().any(|(c, _)| c == customer_id)));
    if first != Some(true) {
        return Ok(());
    }
    // The lock comes before the read: a transaction that waited for it reads what the
    // one before it committed.
    super::lock_customer(tx, customer_id)?;
    let floor = tx.one("SELECT COALESCE(MAX(id), 0) FROM events WHERE customer_id = ?1", args![customer_id], |r| r.get(0))?;
    JOURNAL.with(|j| {
        if let Some(floors) = j.borrow_mut().as_mut() {
            floors.push((customer_id.to_string(), floor));
        }
    });
    Ok(())
}
