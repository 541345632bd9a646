//! Customer accounts (4.9), login (connect-customer) and payment method (4.12).

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use crate::address::{self, AddressUse};
use crate::catalog::Catalog;
use crate::error::{Error, ErrorCategory, Problems, Result};
use crate::ledger::{self, EntryKind};
use crate::money::{to_cents, MAX_AMOUNT};
use crate::secrets::{self, Sealer, Secret};
use crate::store;
use crate::store::{args, Read, Tx};
use crate::wire;

/// What other operations need to know of a customer.
#[derive(Debug, Clone)]
pub(crate) struct Customer {
    pub id: String,
    pub profile_code: String,
    pub minimum_balance_cents: i64,
    pub recharge_amount_cents: i64,
}

/// The customer `id`, or `NOT_FOUND`.
pub(crate) fn find(conn: &Read<'_>, id: &str) -> Result<Customer> {
    read_customer(conn, "SELECT id, profile_code, minimum_balance_cents, recharge_amount_cents FROM customers WHERE id = ?1", id)
}

/// The customer `id`, whose writes `tx` serialises as [`crate::store::lock_customer`]
/// does, in one read: on PostgreSQL the row is read and locked together.
///
/// # Errors
/// `NOT_FOUND` naming `customer`; `BUSY` on a deadlock PostgreSQL broke.
pub(crate) fn find_locked(tx: &Tx<'_>, id: &str) -> Result<Customer> {
    if !crate::store::locks_rows(tx) {
        return find(tx, id);
    }
    read_customer(tx, "SELECT id, profile_code, minimum_balance_cents, recharge_amount_cents FROM customers WHERE id = ?1 FOR UPDATE", id)
}

/// The customer `select` reads (`id` its one parameter).
fn read_customer(conn: &Read<'_>, select: &str, id: &str) -> Result<Customer> {
    conn.row(select, args![id], |r| {
        Ok(Customer { id: r.get(0)?, profile_code: r.get(1)?, minimum_balance_cents: r.get(2)?, recharge_amount_cents: r.get(3)? })
    })?
    .ok_or_else(|| Error::not_found("customer", id))
}

const MIN_PASSWORD: usize = 8;
const MAX_PASSWORD: usize = 256;

/// What a create-customer request (4.9) stores of a customer, every rule checked.
#[derive(Clone)]
struct Fields {
    email: String,
    profile_code: String,
    franchise_id: Option<String>,
    mailing: String,
    billing: String,
    minimum: i64,
    recharge: i64,
    sales_rep: Option<String>,
    utm: Option<String>,
    monthly_volume: Option<String>,
}

/// A create-customer request checked by every rule of 4.9, its password not hashed yet:
/// [`CustomerDraft::hash`] does that, outside any transaction, since it takes tens of
/// milliseconds that must not hold up other requests.
pub(crate) struct CustomerDraft {
    fields: Fields,
    password: Secret,
}

/// A customer ready to be written by [`create`]: checked, its password hashed.
#[derive(Clone)]
pub(crate) struct NewCustomer {
    fields: Fields,
    password_hash: String,
}

impl CustomerDraft {
    /// Hashes the password (argon2id): the slow part of creating a customer.
    ///
    /// # Errors
    /// `INTERNAL` when the system gives no randomness for the salt.
    pub(crate) fn hash(self) -> Result<NewCustomer> {
        Ok(NewCustomer { password_hash: hash_password(self.password.expose())?, fields: self.fields })
    }
}

impl NewCustomer {
    /// The e-mail, as sent but trimmed.
    pub(crate) fn email(&self) -> &str {
        &self.fields.email
    }
}

/// Checks a create-customer request (4.9).
///
/// # Errors
/// `INVALID_REQUEST` naming each invalid field.
pub(crate) fn check(catalog: &Catalog, req: &wire::CreateCustomerRequest) -> Result<CustomerDraft> {
    let mut p = Problems::new();
    if catalog.profile(req.profile_code.trim()).is_none() {
        p.push("profileCode", format!("unknown profile {:?}; every catalog has \"Default\"", req.profile_code));
    }
    let email = req.email.trim();
    if !address::is_email(email) {
        p.push("email", format!("expected an e-mail address like name@example.com, found {:?}", req.email));
    }
    let pw_len = req.password.expose().chars().count();
    if pw_len < MIN_PASSWORD {
        p.push("password", format!("must be at least {MIN_PASSWORD} characters"));
    } else if pw_len > MAX_PASSWORD {
        p.push("password", format!("must be at most {MAX_PASSWORD} characters"));
    }
    if let Some(f) = &req.franchise_id {
        let f = f.trim();
        if f.chars().count() != 3 || !f.chars().all(|c| c.is_ascii_alphanumeric()) {
            p.push("franchiseId", format!("expected a three-character franchise code of letters and digits, found {f:?}"));
        }
    }
    let mailing = address::validate(&mut p, "mailingAddress", &req.mailing_address, AddressUse::Customer);
    let billing = address::validate(&mut p, "billingAddress", &req.billing_address, AddressUse::Customer);
    let minimum = prepay_amount(&mut p, "prepaySettings.minimumBalance", req.prepay_settings.minimum_balance.0);
    let recharge = prepay_amount(&mut p, "prepaySettings.rechargeAmount", req.prepay_settings.recharge_amount.0);
    for (field, value) in [("salesRep", &req.sales_rep), ("monthlyVolume", &req.monthly_volume)] {
        if value.as_ref().is_some_and(|v| v.chars().count() > 100) {
            p.push(field, "must be at most 100 characters");
        }
    }
    p.finish()?;
    let fields = Fields {
        email: email.to_string(),
        profile_code: req.profile_code.trim().to_string(),
        franchise_id: req.franchise_id.as_deref().map(|f| f.trim().to_string()),
        mailing: wire::to_json(&mailing)?,
        billing: wire::to_json(&billing)?,
        minimum,
        recharge,
        sales_rep: req.sales_rep.clone(),
        utm: req.utm.as_ref().map(wire::to_json).transpose()?,
        monthly_volume: req.monthly_volume.clone(),
    };
    Ok(CustomerDraft { fields, password: req.password.clone() })
}

/// The customer registered under `email` (trimmed, in any case), from the lookup table
/// of e-mails: an e-mail is unique across customers.
fn registered_under(conn: &Read<'_>, email: &str) -> Result<Option<String>> {
    conn.row("SELECT customer_id FROM customer_emails WHERE email_key = ?1", args![email.trim().to_lowercase()], |r| r.get(0))
}

/// Whether a customer is registered under `email` (trimmed, in any case).
pub(crate) fn is_registered(conn: &Read<'_>, email: &str) -> Result<bool> {
    Ok(registered_under(conn, email)?.is_some())
}

/// The answer to a create customer with an e-mail already registered: the same whoever
/// registered it and whoever asks.
pub(crate) fn already_registered(email: &str) -> Error {
    Error::fields(
        ErrorCategory::Conflict,
        vec![crate::error::FieldError { field: "email".into(), message: format!("{email} is already registered") }],
    )
}

/// Create customer (4.9): writes the customer [`CustomerDraft::hash`] made and opens its
/// ledger with one recharge of `rechargeAmount`.
///
/// # Errors
/// `CONFLICT` for an e-mail already registered.
pub(crate) fn create(tx: &Tx<'_>, new: &NewCustomer, now: DateTime<Utc>) -> Result<wire::CustomerIdResponse> {
    let f = &new.fields;
    if is_registered(tx, &f.email)? {
        return Err(already_registered(&f.email));
    }
    let id = format!("C{:07}", store::next_id(tx, "customer")?);
    tx.execute(
        "INSERT INTO customers (id, email, email_key, password_hash, profile_code, franchise_id, mailing_address, billing_address,
            minimum_balance_cents, recharge_amount_cents, sales_rep, utm, monthly_volume, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        args![
            id,
            f.email,
            f.email.to_lowercase(),
            new.password_hash,
            f.profile_code,
            f.franchise_id,
            f.mailing,
            f.billing,
            f.minimum,
            f.recharge,
            f.sales_rep,
            f.utm,
            f.monthly_volume,
            crate::dates::timestamp(now),
        ],
    )?;
    tx.execute("INSERT INTO customer_emails (email_key, customer_id) VALUES (?1, ?2)", args![f.email.to_lowercase(), id])?;
    ledger::append(tx, &id, EntryKind::Recharge, f.recharge, "account opened", now)?;
    Ok(wire::CustomerIdResponse { customer_id: id })
}

fn prepay_amount(p: &mut Problems, field: &str, value: Decimal) -> i64 {
    if value < Decimal::ZERO {
        p.push(field, format!("must be zero or more, found {value}"));
    } else if value.normalize().scale() > 2 {
        p.push(field, format!("must have at most 2 decimal places, found {value}"));
    } else if value > MAX_AMOUNT {
        p.push(field, format!("must be at most {MAX_AMOUNT}"));
    }
    to_cents(value).unwrap_or(0)
}

fn hash_password(password: &str) -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).map_err(|e| Error::internal(format!("no randomness for a password salt: {e}")))?;
    let salt = SaltString::encode_b64(&bytes).map_err(|e| Error::internal(format!("could not encode a password salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::internal(format!("could not hash the password: {e}")))
}

/// The id and password hash of the customer registered under `email`, if any: what
/// [`verify`] checks a login against, outside the connection's lock.
pub(crate) fn credentials(conn: &Read<'_>, email: &str) -> Result<Option<(String, String)>> {
    let Some(id) = registered_under(conn, email)? else {
        return Ok(None);
    };
    conn.row("SELECT id, password_hash FROM customers WHERE id = ?1", args![id], |r| Ok((r.get(0)?, r.get(1)?)))
}

/// Connect customer: the customer id when `password` is the one of `credentials`, else
/// 401, the same answer for an unknown e-mail so that it does not reveal who is
/// registered.
///
/// # Errors
/// `UNAUTHORIZED` for a wrong pair or an unknown e-mail.
pub(crate) fn verify(credentials: Option<(String, String)>, password: &str) -> Result<wire::CustomerIdResponse> {
    let refused = || Error::new(ErrorCategory::Unauthorized, "The e-mail and password do not match a customer.");
    let Some((id, hash)) = credentials else {
        // Spend the work of a wrong password, so that timing does not reveal who is registered.
        if let Ok(dummy) = PasswordHash::new(DUMMY_HASH) {
            let _ = Argon2::default().verify_password(password.as_bytes(), &dummy);
        }
        return Err(refused());
    };
    let parsed = PasswordHash::new(&hash).map_err(|e| Error::internal(format!("stored password hash is unreadable: {e}")))?;
    Argon2::default().verify_password(password.as_bytes(), &parsed).map_err(|_| refused())?;
    Ok(wire::CustomerIdResponse { customer_id: id })
}

/// A hash that matches no password, checked against when the e-mail is unknown: with the
/// parameters `hash_password` uses (argon2id, m=19456, t=2, p=1), so that an unknown
/// e-mail costs what a wrong password costs, from the first login of a process on.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$U7eykhAvxBYcMy71Jp53CQ$xuW4jnl5f9f8IhicIqrv+qmwsuv2ONPzszMHX+6D70s";

/// The token type of 4.12, under its neutral name and the spec's bracketed spelling.
const TOKEN_TYPES: [&str; 2] = ["processorCardToken", "<processor>CardToken"];

/// Update payment method (4.12): keeps the token (through [`secrets::store`]: sealed
/// when the service has a key) and billing address, never card data.
pub(crate) fn update_payment_method(
    tx: &Tx<'_>,
    sealer: Option<&Sealer>,
    customer_id: &str,
    req: &wire::UpdatePaymentMethodRequest,
    now: DateTime<Utc>,
) -> Result<wire::OkResponse> {
    let mut p = Problems::new();
    let billing = address::validate(&mut p, "billingAddress", &req.billing_address, AddressUse::PaymentBilling);
    let pm = &req.payment_method;
    if !TOKEN_TYPES.contains(&pm.payment_method_type.trim()) {
        p.push("paymentMethod.paymentMethodType", format!("expected \"processorCardToken\", found {:?}", pm.payment_method_type));
    }
    let token = pm.processor_card_token_id.expose().trim();
    if token.is_empty() {
        p.push("paymentMethod.processorCardTokenId", "must not be empty");
    } else if token.len() > 200 {
        p.push("paymentMethod.processorCardTokenId", "must be at most 200 characters");
    } else if holds_card_number(token) {
        p.push("paymentMethod.processorCardTokenId", "holds a card number; send the token from the secure payment form, never card data");
    }
    p.finish()?;
    let stored = secrets::store(sealer, &secrets::payment_token_context(customer_id), token)?;
    tx.execute(
        "INSERT INTO payment_methods (customer_id, token, billing_address, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (customer_id) DO UPDATE SET token = excluded.token, billing_address = excluded.billing_address, updated_at = excluded.updated_at",
        args![customer_id, stored, wire::to_json(&billing)?, crate::dates::timestamp(now)],
    )?;
    Ok(wire::OkResponse::OK)
}

/// The customer's payment token in clear, or `None` without a payment method: for the
/// application that charges the recharges with its payment processor.
///
/// # Errors
/// `INTERNAL` when it is sealed and the service has no key or another one.
pub(crate) fn payment_token(conn: &Read<'_>, sealer: Option<&Sealer>, customer_id: &str) -> Result<Option<String>> {
    let stored: Option<String> = conn.row("SELECT token FROM payment_methods WHERE customer_id = ?1", args![customer_id], |r| r.get(0))?;
    stored.map(|token| secrets::reveal(sealer, &secrets::payment_token_context(customer_id), &token)).transpose()
}

/// True if the customer has a payment method on file.
pub(crate) fn has_payment_method(conn: &Read<'_>, customer_id: &str) -> Result<bool> {
    Ok(conn.row("SELECT 1 FROM payment_methods WHERE customer_id = ?1", args![customer_id], |_| Ok(()))?.is_some())
}

/// True if `text` holds a card number: 13 to 19 digits that pass the Luhn check, however
/// they are separated (spaces, dots, dashes, slashes: anything but letters) and whatever
/// surrounds them. Letters end a run of digits; within a run, every sequence of whole
/// groups is tried, so that a card number followed by its expiry date is found too.
pub(crate) fn holds_card_number(text: &str) -> bool {
    let mut digits: Vec<u8> = Vec::new();
    // Where each group of adjacent digits of the current run starts in `digits`.
    let mut groups: Vec<usize> = Vec::new();
    let mut in_group = false;
    for c in text.chars() {
        if let Some(d) = c.to_digit(10) {
            if !in_group {
                groups.push(digits.len());
                in_group = true;
            }
            digits.push(d as u8);
            continue;
        }
        in_group = false;
        if c.is_alphabetic() {
            if run_holds_card_number(&digits, &groups) {
                return true;
            }
            digits.clear();
            groups.clear();
        }
    }
    run_holds_card_number(&digits, &groups)
}

/// True if some sequence of whole groups of `digits` (starting at `groups`) is 13 to 19
/// digits long and passes the Luhn check.
fn run_holds_card_number(digits: &[u8], groups: &[usize]) -> bool {
    groups.iter().enumerate().any(|(i, &start)| {
        groups[i + 1..].iter().copied().chain(std::iter::once(digits.len())).any(|end| {
            let candidate = &digits[start..end];
            (13..=19).contains(&candidate.len()) && passes_luhn(candidate)
        })
    })
}

fn passes_luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            match (i % 2 == 1, d * 2) {
                (true, doubled) if doubled > 9 => doubled - 9,
                (true, doubled) => doubled,
                (false, _) => d,
            }
        })
        .sum();
    sum % 10 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_numbers_are_found_however_written() {
        for text in [
            "4111111111111111",
            "4111 1111 1111 1111",
            "4111-1111-1111-1111",
            "4111.1111.1111.1111",
            "4111/1111/1111/1111",
            "tok 4111111111111111",
            "tok_4111111111111111",
            "4111111111111111tok",
            "card: 4111 1111 1111 1111 exp 12/29",
            "4111111111111111 12/29 123",
            "378282246310005",
            "6011000990139424",
        ] {
            assert!(holds_card_number(text), "{text}");
        }
        for text in ["4111111111111112", "tok_1NqLx2Ab9zQ", "123456789012", "tok_4eC39HqLyjWDarjtT1zdp7dc", "", "4111 1111 1111 1112 x"] {
            assert!(!holds_card_number(text), "{text}");
        }
    }

    /// The hash an unknown e-mail is checked against is a constant of the same algorithm
    /// and cost as every stored hash (so the first unknown e-mail of a process costs one
    /// argon2 run, as a wrong password does, and not two), and no password matches it.
    #[test]
    fn the_dummy_hash_costs_what_a_stored_hash_costs() {
        let dummy = PasswordHash::new(DUMMY_HASH).unwrap();
        let stored = hash_password("correct horse").unwrap();
        let stored = PasswordHash::new(&stored).unwrap();
        assert_eq!((dummy.algorithm, dummy.version), (stored.algorithm, stored.version));
        assert_eq!(dummy.params, stored.params);
        for password in ["", "no customer has this password ", "correct horse"] {
            assert_eq!(verify(None, password).unwrap_err().category(), ErrorCategory::Unauthorized);
        }
    }
}
