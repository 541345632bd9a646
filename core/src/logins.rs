//! The login throttle (DECISIONS, "Logins"): failed logins counted per account (the
//! e-mail) and per API key, in the database, so that every server on one file and every
//! restart sees them.
//!
//! A failure is a connect customer whose e-mail and password do not match, or a create
//! customer with an e-mail already registered. From the [`ACCOUNT_LOCK_AFTER`]th failure
//! of an account (the [`KEY_LOCK_AFTER`]th of a key) on, each failure locks it for
//! [`FIRST_DELAY`] seconds, doubled with every further failure up to [`MAX_DELAY`]; a
//! locked account or key is answered `TOO_MANY_ATTEMPTS` with the seconds left, whatever
//! the password. The count is forgotten [`QUIET`] seconds after the last failure, and an
//! account's on a successful login. Times come from the service's clock.

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCategory, Result};
use crate::store::{args, Read, Tx};

/// The failure of an account (e-mail) that locks it first: the ones before are free.
pub const ACCOUNT_LOCK_AFTER: i64 = 5;
/// The failure of an API key (across accounts) that locks it first.
pub const KEY_LOCK_AFTER: i64 = 20;
/// Seconds of the first lock; each further failure doubles it.
pub const FIRST_DELAY: i64 = 30;
/// The longest lock, in seconds.
pub const MAX_DELAY: i64 = 15 * 60;
/// Seconds without a failure after which an account's or key's failures are forgotten.
pub const QUIET: i64 = 60 * 60;

// A lock ends before its failures are forgotten, so that the delay grows.
const _: () = assert!(MAX_DELAY < QUIET);

/// What failures are counted against: an account, a key, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subjects {
    account: String,
    key: Option<String>,
}

impl Subjects {
    /// The account of `email` (as customers are found: trimmed, in lower case) and the
    /// key `key_id`, if the call came with one.
    pub(crate) fn new(email: &str, key_id: Option<&str>) -> Subjects {
        let digest = Sha256::digest(email.trim().to_lowercase().as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        Subjects { account: format!("account:{hex}"), key: key_id.map(|id| format!("key:{id}")) }
    }

    fn each(&self) -> impl Iterator<Item = (&str, i64)> {
        std::iter::once((self.account.as_str(), ACCOUNT_LOCK_AFTER)).chain(self.key.as_deref().map(|key| (key, KEY_LOCK_AFTER)))
    }
}

/// Seconds of the lock after the `failures`th failure with the first lock at `lock_after`.
fn delay(failures: i64, lock_after: i64) -> i64 {
    if failures < lock_after {
        return 0;
    }
    let doublings = u32::try_from(failures - lock_after).unwrap_or(u32::MAX).min(16);
    (FIRST_DELAY << doublings).min(MAX_DELAY)
}

/// The failures counted against `subject` at `now` and when the last was, if any are.
fn failures(conn: &Read<'_>, subject: &str, now: i64) -> Result<Option<(i64, i64)>> {
    let row: Option<(i64, i64)> =
        conn.row("SELECT failures, last_failure_at FROM login_failures WHERE subject = ?1", args![subject], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    Ok(row.filter(|&(_, last)| now < last + QUIET))
}

/// `TOO_MANY_ATTEMPTS` with the seconds until the account and the key are both free,
/// when either is locked at `now`.
///
/// # Errors
/// `TOO_MANY_ATTEMPTS` when locked; else only on a storage failure.
pub(crate) fn check(conn: &Read<'_>, subjects: &Subjects, now: DateTime<Utc>) -> Result<()> {
    let now = now.timestamp();
    let mut wait = 0;
    let mut what = "";
    for (subject, lock_after) in subjects.each() {
        if let Some((count, last)) = failures(conn, subject, now)? {
            let left = last + delay(count, lock_after) - now;
            if left > wait {
                wait = left;
                what = if subject.starts_with("key:") { "this API key" } else { "this e-mail" };
            }
        }
    }
    if wait <= 0 {
        return Ok(());
    }
    Err(Error::new(
        ErrorCategory::TooManyAttempts,
        format!("Too many failed logins for {what}; try again in {wait} seconds. No password is checked before then."),
    )
    .with_retry_after(u64::try_from(wait).unwrap_or(1)))
}

/// Counts a failure against the account and the key at `now`, and forgets the failures
/// of every subject quiet since [`QUIET`] seconds.
pub(crate) fn fail(tx: &Tx<'_>, subjects: &Subjects, now: DateTime<Utc>) -> Result<()> {
    let now = now.timestamp();
    tx.execute("DELETE FROM login_failures WHERE last_failure_at <= ?1", args![now - QUIET])?;
    for (subject, _) in subjects.each() {
        tx.execute(
            "INSERT INTO login_failures (subject, failures, last_failure_at) VALUES (?1, 1, ?2)
             ON CONFLICT (subject) DO UPDATE SET failures = login_failures.failures + 1, last_failure_at = excluded.last_failure_at",
            args![subject, now],
        )?;
    }
    Ok(())
}

/// Forgets the failures of the account (a successful login); the key's stay, so that
/// a key cannot wipe its count with a login it knows.
pub(crate) fn succeed(tx: &Tx<'_>, subjects: &Subjects) -> Result<()> {
    tx.execute("DELETE FROM login_failures WHERE subject = ?1", args![subjects.account])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delay_doubles_from_the_first_lock_up_to_the_cap() {
        let delays: Vec<i64> = (1..=12).map(|n| delay(n, 5)).collect();
        assert_eq!(delays, [0, 0, 0, 0, 30, 60, 120, 240, 480, 900, 900, 900]);
        assert_eq!(delay(i64::MAX, 5), MAX_DELAY);
    }

    #[test]
    fn an_account_is_its_email_as_customers_are_found() {
        assert_eq!(Subjects::new(" Ann@Example.com ", None), Subjects::new("ann@example.com", None));
        assert_ne!(Subjects::new("ann@example.com", None), Subjects::new("bob@example.com", None));
        assert_eq!(Subjects::new("a", Some("K0000001")).key.as_deref(), Some("key:K0000001"));
    }
}
