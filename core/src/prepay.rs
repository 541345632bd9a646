//! The prepay charge: what a booking or a carried return label costs is taken from the
//! customer's prepay balance, recharged first from the payment method on file when the
//! booking approves it (DECISIONS 7).

use chrono::{DateTime, Utc};

use crate::customers::{self, Customer};
use crate::error::{Error, ErrorCategory, Result};
use crate::ledger::{self, EntryKind};
use crate::money::{format2, from_cents};
use crate::store::Tx;

/// Most recharges one booking may trigger (guards a tiny recharge amount).
const MAX_RECHARGES: i64 = 100;

/// Charges `cost_cents` (USD) to the customer's prepay balance, recharging first when
/// asked to and needed (DECISIONS 7, [`recharge`]). Returns the balance after.
///
/// # Errors
/// `INSUFFICIENT_FUNDS` when the balance, recharged if it may be, does not cover the
/// cost (a debt included); nothing is written then.
pub(crate) fn charge(
    tx: &Tx<'_>,
    customer: &Customer,
    cost_cents: i64,
    approve_recharge: bool,
    reference: &str,
    now: DateTime<Utc>,
) -> Result<i64> {
    let balance = recharge(tx, customer, cost_cents, approve_recharge, reference, now)?;
    ledger::append_to(tx, &customer.id, balance, EntryKind::Charge, -cost_cents, reference, now)
}

/// Lets a booking that charges nothing (billed to the receiver or a third party) go on
/// only when the balance is not below zero, or its approved automatic recharge pays the
/// debt (up to the minimum balance, [`recharge`]). Returns the balance after.
///
/// # Errors
/// `INSUFFICIENT_FUNDS` in debt without a recharge that pays it; nothing is written then.
pub(crate) fn refuse_in_debt(tx: &Tx<'_>, customer: &Customer, approve_recharge: bool, reference: &str, now: DateTime<Utc>) -> Result<i64> {
    let balance = ledger::balance_cents(tx, &customer.id)?;
    if balance >= 0 {
        return Ok(balance);
    }
    recharge(tx, customer, 0, approve_recharge, reference, now)
}

/// Charges `cost_cents` (USD) for what a carrier has carried (a return label's first
/// scan): recharged first as an approved booking would be, and taken whole when the
/// balance cannot be recharged enough (no payment method, a recharge amount of zero, or
/// more than [`MAX_RECHARGES`]), leaving a debt. Returns the balance after.
pub(crate) fn charge_carried(tx: &Tx<'_>, customer: &Customer, cost_cents: i64, reference: &str, now: DateTime<Utc>) -> Result<i64> {
    if let Err(e) = recharge(tx, customer, cost_cents, true, reference, now) {
        if e.category() != ErrorCategory::InsufficientFunds {
            return Err(e);
        }
    }
    ledger::charge_owed(tx, &customer.id, cost_cents, reference, now)
}

/// Recharges the prepay balance before a charge of `cost_cents`, when `approve_recharge`
/// and the balance falls short: `rechargeAmount` as many times as needed for
/// `balance - cost >= minimumBalance`, at most [`MAX_RECHARGES`], from the payment method
/// on file. A negative balance (a debt) is part of the shortfall, so the recharge pays it
/// first. Returns the balance after.
///
/// # Errors
/// `INSUFFICIENT_FUNDS`, with nothing written, when the balance does not cover the cost
/// (or, in debt, is below zero) and cannot be recharged enough: not approved, no payment
/// method, a recharge amount of zero, or more than [`MAX_RECHARGES`] recharges.
fn recharge(tx: &Tx<'_>, customer: &Customer, cost_cents: i64, approve_recharge: bool, reference: &str, now: DateTime<Utc>) -> Result<i64> {
    let balance = ledger::balance_cents(tx, &customer.id)?;
    let shortfall = customer.minimum_balance_cents + cost_cents - balance;
    if shortfall <= 0 {
        return Ok(balance);
    }
    let amount = customer.recharge_amount_cents;
    let why = if !approve_recharge {
        "no recharge was approved (approvePrepayRecharge)"
    } else if amount == 0 {
        "the recharge amount is zero"
    } else if !customers::has_payment_method(tx, &customer.id)? {
        "no payment method is on file"
    } else {
        let times = (shortfall + amount - 1) / amount;
        if times > MAX_RECHARGES {
            return Err(Error::new(
                ErrorCategory::InsufficientFunds,
                format!(
                    "Covering {} USD would take {times} recharges of {} USD; raise the recharge amount.",
                    format2(from_cents(cost_cents - balance.min(0))),
                    format2(from_cents(amount))
                ),
            ));
        }
        let mut after = balance;
        for _ in 0..times {
            after = ledger::append(tx, &customer.id, EntryKind::Recharge, amount, &format!("automatic recharge for {reference}"), now)?;
        }
        return Ok(after);
    };
    if balance < 0 {
        return Err(Error::new(
            ErrorCategory::InsufficientFunds,
            format!(
                "The prepay balance is {} USD, a debt of {} USD for what a carrier carried: bookings are refused until a recharge covers it, and {why}.",
                format2(from_cents(balance)),
                format2(from_cents(-balance))
            ),
        ));
    }
    if cost_cents > balance {
        return Err(Error::new(
            ErrorCategory::InsufficientFunds,
            format!(
                "The prepay balance of {} USD does not cover {} USD and it cannot be recharged: {why}.",
                format2(from_cents(balance)),
                format2(from_cents(cost_cents))
            ),
        ));
    }
    Ok(balance)
}
