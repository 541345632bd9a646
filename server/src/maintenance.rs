//! The purge of expired quotes: `consign serve` removes them by itself, at start and then
//! every [`QuotePurge::every`], so that the file does not grow with quotes nobody can
//! book; and with them the answers kept for `Idempotency-Key`s past their 24 hours and
//! the events past their 90 days (each customer's newest stays). A thread of its own finds the expired rows on a connection of its own, without
//! writing; the writer removes them [`PURGE_ROWS`] at a time, each part one short write
//! taking its turn with the tenants' writes (see [`crate::writer`]). On PostgreSQL the
//! thread removes them itself, on its connection, as writes run in parallel there.

use std::time::Duration;

use consign::Shipping;

use crate::writer::{self, Handle, ROWS_PER_UNIT};

/// Quoted shipments removed per write.
pub const PURGE_ROWS: usize = 256;

/// The tenant of the purge's writes in the writer's queue: no API key is empty.
const PURGE_TENANT: &str = "";

/// How often, and which, expired quotes the server removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotePurge {
    /// Time between two purges (the first is at start).
    pub every: Duration,
    /// Days a quote stays after it expired (booking it answers `QUOTE_EXPIRED` meanwhile,
    /// `NOT_FOUND` after): [`consign::Shipping::purge_expired_quotes`]'s `days`.
    pub expired_for_days: u32,
}

impl Default for QuotePurge {
    /// Once a day, the quotes expired for 7 days or more.
    fn default() -> Self {
        QuotePurge { every: Duration::from_secs(24 * 3600), expired_for_days: 7 }
    }
}

/// Stops the purge thread when dropped (it ends at once if waiting, else after its
/// current write).
pub(crate) struct Stop(#[expect(dead_code, reason = "held to be dropped: the thread sees the channel close")] std::sync::mpsc::Sender<()>);

/// Starts the purge thread, reading on `shipping`, writing through `queue`; `log` says
/// what each purge removed.
pub(crate) fn spawn(shipping: Shipping, queue: Handle, purge: QuotePurge, log: bool) -> std::io::Result<Stop> {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    std::thread::Builder::new().name("consign-purge".into()).spawn(move || loop {
        match purge_once(&shipping, &queue, purge.expired_for_days) {
            Ok(removed) if log && removed > 0 => eprintln!("consign: purged {removed} expired quotes"),
            Ok(_) => {}
            Err(Stopped) => return,
        }
        if let Err(std::sync::mpsc::RecvTimeoutError::Disconnected) = stopped.recv_timeout(purge.every) {
            return;
        }
    })?;
    Ok(Stop(stop))
}

/// The writer's queue is closed: the server is stopping.
struct Stopped;

/// Finds the quotes expired for `days` and removes them through the writer; how many
/// quotes it removed. A failure leaves the rest to the next purge.
fn purge_once(shipping: &Shipping, queue: &Handle, days: u32) -> Result<u64, Stopped> {
    let Ok(mut expired) = shipping.expired_quotes(days) else { return Ok(0) };
    let mut removed = 0;
    while !expired.is_empty() {
        let part = expired.take(PURGE_ROWS);
        // The count goes in the answer, which the writer gives once the part is committed.
        let work: writer::Work = Box::new(move |s: &Shipping| counted(s.purge_some_expired_quotes(&part)));
        let answer = writer::run_blocking(queue, shipping, PURGE_TENANT, PURGE_ROWS / ROWS_PER_UNIT, work).map_err(|_| Stopped)?;
        match (answer.status, answer.body.parse::<u64>()) {
            (200, Ok(n)) => removed += n,
            _ => return Ok(removed),
        }
    }
    purge_in_parts(shipping, queue, Shipping::purge_expired_answers)?;
    purge_in_parts(shipping, queue, Shipping::purge_expired_events)?;
    Ok(removed)
}

/// Runs `purge` (the answers kept for `Idempotency-Key`s past their 24 hours, or the
/// events past their 90 days) through the writer, [`PURGE_ROWS`] rows per write, until
/// it removes fewer. A failure leaves the rest to the next purge.
fn purge_in_parts(shipping: &Shipping, queue: &Handle, purge: fn(&Shipping, u32) -> consign::Result<u64>) -> Result<(), Stopped> {
    let at_most = u32::try_from(PURGE_ROWS).unwrap_or(u32::MAX);
    loop {
        let work: writer::Work = Box::new(move |s: &Shipping| counted(purge(s, at_most)));
        let answer = writer::run_blocking(queue, shipping, PURGE_TENANT, PURGE_ROWS / ROWS_PER_UNIT, work).map_err(|_| Stopped)?;
        match (answer.status, answer.body.parse::<u64>()) {
            (200, Ok(n)) if n == u64::from(at_most) => {}
            _ => return Ok(()),
        }
    }
}

/// The writer's answer to a purge's part: how many rows it removed, or the error.
fn counted(removed: consign::Result<u64>) -> consign::Response {
    match removed {
        Ok(n) => consign::Response { status: 200, body: n.to_string(), retry_after: None, document: None },
        Err(e) => consign::Response::error(&e),
    }
}
