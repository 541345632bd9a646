//! The prepay ledger: append-only entries per customer, money in cents, balance never
//! negative. The balance is the `balance_after` of the newest entry, which always equals
//! the sum of all entries because each entry is written from the one before it inside
//! the operation's transaction.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, OptionalExtension};

use crate::error::{Error, ErrorCategory, Result};
use crate::money::{format2, from_cents};
use crate::wire;

/// What a ledger entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// Money added from the payment method.
    Recharge,
    /// A shipment charged.
    Charge,
    /// A voided shipment refunded.
    Refund,
}

impl EntryKind {
    /// The stored and shown name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Recharge => "recharge",
            Self::Charge => "charge",
            Self::Refund => "refund",
        }
    }
}

/// The customer's balance in cents (0 before any entry).
pub(crate) fn balance_cents(conn: &Connection, customer_id: &str) -> Result<i64> {
    let balance = conn
        .prepare_cached("SELECT balance_after_cents FROM ledger_entries WHERE customer_id = ?1 ORDER BY id DESC LIMIT 1")?
        .query_row([customer_id], |r| r.get(0))
        .optional()?;
    Ok(balance.unwrap_or(0))
}

/// Appends an entry of `amount_cents` (negative for charges) and returns the new balance.
///
/// # Errors
/// `INSUFFICIENT_FUNDS` if the balance would fall below zero; nothing is written then.
pub(crate) fn append(
    tx: &Connection,
    customer_id: &str,
    kind: EntryKind,
    amount_cents: i64,
    reference: &str,
    now: DateTime<Utc>,
) -> Result<i64> {
    let before = balance_cents(tx, customer_id)?;
    let after = before
        .checked_add(amount_cents)
        .ok_or_else(|| Error::new(ErrorCategory::InvalidRequest, "The amount is too large for the prepay balance."))?;
    if after < 0 {
        return Err(Error::new(
            ErrorCategory::InsufficientFunds,
            format!("The prepay balance of {} USD does not cover {} USD.", format2(from_cents(before)), format2(from_cents(-amount_cents))),
        ));
    }
    // Entry ids are one sequence over all customers, in the order entries are written.
    let id = crate::store::next_id(tx, "ledger_entry")?;
    tx.prepare_cached(
        "INSERT INTO ledger_entries (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(rusqlite::params![customer_id, id, kind.as_str(), amount_cents, after, reference, timestamp(now)])?;
    Ok(after)
}

/// RFC 3339 UTC text with seconds, as stored and shown.
pub(crate) fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The prepay view: balance, settings and entries newest first.
pub(crate) fn prepay(conn: &Connection, customer_id: &str) -> Result<wire::PrepayResponse> {
    let (minimum, recharge): (i64, i64) =
        conn.query_row("SELECT minimum_balance_cents, recharge_amount_cents FROM customers WHERE id = ?1", [customer_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let mut stmt = conn.prepare_cached(
        "SELECT id, kind, amount_cents, balance_after_cents, created_at, reference FROM ledger_entries WHERE customer_id = ?1 ORDER BY id DESC",
    )?;
    let entries = stmt
        .query_map([customer_id], |r| {
            Ok(wire::LedgerEntry {
                id: r.get("id")?,
                kind: r.get("kind")?,
                amount: format2(from_cents(r.get("amount_cents")?)),
                balance_after: format2(from_cents(r.get("balance_after_cents")?)),
                created_at: r.get("created_at")?,
                reference: r.get("reference")?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(wire::PrepayResponse {
        balance: format2(from_cents(balance_cents(conn, customer_id)?)),
        currency: "USD".into(),
        minimum_balance: format2(from_cents(minimum)),
        recharge_amount: format2(from_cents(recharge)),
        entries,
    })
}
