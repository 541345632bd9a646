//! The prepay ledger: append-only entries per customer, money in cents. The balance is
//! the `balance_after` of the newest entry, which always equals the sum of all entries
//! because each entry is written from the one before it inside the operation's
//! transaction.
//!
//! An entry that lowers the balance may not take it below zero ([`append`]), except a
//! charge for what a carrier has already carried ([`charge_owed`]): the balance is then
//! negative, a debt, shown as such (`"-3.20"`), and bookings wait for a recharge to
//! cover it (`prepay::charge`). Entries that raise the balance are always written.

use chrono::{DateTime, Utc};

use crate::dates::timestamp;
use crate::error::{Error, ErrorCategory, Result};
use crate::events;
use crate::money::{format2, from_cents};
use crate::store::{args, Read, Tx};
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
pub(crate) fn balance_cents(conn: &Read<'_>, customer_id: &str) -> Result<i64> {
    let balance = conn.row(
        "SELECT balance_after_cents FROM ledger_entries WHERE customer_id = ?1 ORDER BY id DESC LIMIT 1",
        args![customer_id],
        |r| r.get(0),
    )?;
    Ok(balance.unwrap_or(0))
}

/// Appends an entry of `cents` (negative for charges) to `customer`'s ledger and returns
/// the new balance.
///
/// # Errors
/// `INSUFFICIENT_FUNDS` if the entry lowers the balance below zero; nothing is written
/// then.
pub(crate) fn append(tx: &Tx<'_>, customer: &str, kind: EntryKind, cents: i64, reference: &str, now: DateTime<Utc>) -> Result<i64> {
    append_to(tx, customer, balance_cents(tx, customer)?, kind, cents, reference, now)
}

/// Appends an entry as [`append`] does, to a ledger whose balance `tx` has just read as
/// `before` (the customer's row locked, so that no other write changed it since).
pub(crate) fn append_to(
    tx: &Tx<'_>,
    customer: &str,
    before: i64,
    kind: EntryKind,
    cents: i64,
    reference: &str,
    now: DateTime<Utc>,
) -> Result<i64> {
    let after = balance_after(before, cents)?;
    if cents < 0 && after < 0 {
        return Err(Error::new(
            ErrorCategory::InsufficientFunds,
            format!("The prepay balance of {} USD does not cover {} USD.", format2(from_cents(before)), format2(from_cents(-cents))),
        ));
    }
    insert(tx, customer, kind, cents, after, reference, now)
}

/// Appends a charge of `cost_cents` as [`append`] does, except that it may take the
/// balance below zero: a debt, for what a carrier has carried, which is never refused.
pub(crate) fn charge_owed(tx: &Tx<'_>, customer_id: &str, cost_cents: i64, reference: &str, now: DateTime<Utc>) -> Result<i64> {
    let after = balance_after(balance_cents(tx, customer_id)?, -cost_cents)?;
    insert(tx, customer_id, EntryKind::Charge, -cost_cents, after, reference, now)
}

/// The balance `before` with `cents` more.
fn balance_after(before: i64, cents: i64) -> Result<i64> {
    before.checked_add(cents).ok_or_else(|| Error::new(ErrorCategory::InvalidRequest, "The amount is too large for the prepay balance."))
}

/// Writes the entry of `cents`, which leaves the balance at `after`, and its event
/// (`prepay.charged`, `prepay.recharged` or `prepay.refunded`); returns `after`.
fn insert(tx: &Tx<'_>, customer: &str, kind: EntryKind, cents: i64, after: i64, reference: &str, now: DateTime<Utc>) -> Result<i64> {
    // Entry ids are one sequence over all customers, in the order entries are written.
    let id = crate::store::next_id(tx, "ledger_entry")?;
    let created_at = timestamp(now);
    tx.execute_later(
        "INSERT INTO ledger_entries (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        args![customer, id, kind.as_str(), cents, after, reference, created_at],
    )?;
    let event = match kind {
        EntryKind::Recharge => events::Type::PrepayRecharged,
        EntryKind::Charge => events::Type::PrepayCharged,
        EntryKind::Refund => events::Type::PrepayRefunded,
    };
    let entry = wire::LedgerEntry {
        id,
        kind: kind.as_str().to_string(),
        amount: format2(from_cents(cents)),
        balance_after: format2(from_cents(after)),
        created_at,
        reference: reference.to_string(),
    };
    events::append(tx, customer, event, &id.to_string(), now, &entry)?;
    Ok(after)
}

/// The prepay view: balance, settings and entries newest first.
pub(crate) fn prepay(conn: &Read<'_>, customer_id: &str) -> Result<wire::PrepayResponse> {
    let (minimum, recharge): (i64, i64) =
        conn.one("SELECT minimum_balance_cents, recharge_amount_cents FROM customers WHERE id = ?1", args![customer_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    let entries = conn.rows(
        "SELECT id, kind, amount_cents, balance_after_cents, created_at, reference FROM ledger_entries WHERE customer_id = ?1 ORDER BY id DESC",
        args![customer_id],
        |r| {
            Ok(wire::LedgerEntry {
                id: r.get(0)?,
                kind: r.get(1)?,
                amount: format2(from_cents(r.get(2)?)),
                balance_after: format2(from_cents(r.get(3)?)),
                created_at: r.get(4)?,
                reference: r.get(5)?,
            })
        },
    )?;
    Ok(wire::PrepayResponse {
        balance: format2(from_cents(balance_cents(conn, customer_id)?)),
        currency: "USD".into(),
        minimum_balance: format2(from_cents(minimum)),
        recharge_amount: format2(from_cents(recharge)),
        entries,
    })
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    /// A ledger of the baseline schema, which refused a balance below zero, keeps its
    /// entries and its append-only rule through the upgrades, and then takes a carrier's
    /// charge as a debt while still refusing any other charge past zero.
    #[test]
    fn the_upgrade_keeps_the_entries_and_lets_a_carrier_charge_owe() {
        let mut conn = crate::store::testing::with_customer(Some(1));
        conn.execute_batch(
            "INSERT INTO id_sequences (name, last) VALUES ('ledger_entry', 1);
             INSERT INTO ledger_entries (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
             VALUES ('C1', 1, 'recharge', 20000, 20000, 'account opened', '2026-01-01T00:00:00Z');",
        )
        .unwrap();
        let negative = "INSERT INTO ledger_entries (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
                        VALUES ('C1', 2, 'charge', -30000, -10000, 'x', '2026-01-02T00:00:00Z')";
        assert!(conn.execute(negative, []).is_err(), "the baseline refuses a negative balance");
        crate::store::migrate(&mut conn).unwrap();
        assert_eq!(balance_cents(&crate::store::Read::of(&conn), "C1").unwrap(), 20000);
        let now = Utc.with_ymd_and_hms(2026, 11, 21, 15, 0, 0).unwrap();
        let tx = conn.transaction().unwrap();
        let refused = append(&crate::store::Tx::of(&tx), "C1", EntryKind::Charge, -30000, "shipment", now).unwrap_err();
        assert_eq!(refused.category(), ErrorCategory::InsufficientFunds);
        assert_eq!(charge_owed(&crate::store::Tx::of(&tx), "C1", 30000, "return label", now).unwrap(), -10000);
        // an entry that raises the balance is written, even if it stays below zero
        assert_eq!(append(&crate::store::Tx::of(&tx), "C1", EntryKind::Recharge, 4000, "recharge", now).unwrap(), -6000);
        assert!(tx.execute("UPDATE ledger_entries SET amount_cents = 0", []).is_err(), "still append-only");
        assert!(tx.execute("DELETE FROM ledger_entries", []).is_err(), "still append-only");
        tx.commit().unwrap();
        let view = prepay(&crate::store::Read::of(&conn), "C1").unwrap();
        assert_eq!(view.balance, "-60.00");
        let after: Vec<&str> = view.entries.iter().map(|e| e.balance_after.as_str()).collect();
        assert_eq!(after, ["-60.00", "-100.00", "200.00"]);
        assert_eq!(view.entries[1].amount, "-300.00");
    }
}
