//! API keys of the HTTP interface (DECISIONS 9): who a caller of `consign serve` is, and
//! which customers it acts for.
//!
//! A key is 32 random bytes, shown once as `csk_<id>_<base64url of the bytes>`: the
//! prefix tells a consign key from other secrets (secret scanners, logs), and the id in
//! it finds the row without an index over secrets. Only the SHA-256 digest of the whole
//! key is stored, and the digest of a presented key is compared with it in constant
//! time, so neither a copy of the database nor the timing of answers gives a key away.
//!
//! A key made for a customer acts for that customer alone. A key made without one is a
//! partner key: it acts for exactly the customers it created or connected, recorded in
//! `api_key_customers` in the same transaction as the creation or the connection.

use base64::Engine as _;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::{Error, ErrorCategory, Result};
use crate::store::{args, Read, Row, Tx};
use crate::{customers, store, wire};

/// What every consign API key starts with.
pub const KEY_PREFIX: &str = "csk_";

/// The longest name of a key, in characters.
const MAX_NAME: usize = 100;

/// An API key as listed: everything but the key itself, which is never stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// The key's id, e.g. `K0000001`: what `consign keys revoke` takes.
    pub id: String,
    /// The customer the key acts for; `None` for a partner key.
    pub customer_id: Option<String>,
    /// The name given at creation (who or what uses the key), possibly empty.
    pub name: String,
    /// When the key was made (RFC 3339, UTC).
    pub created_at: String,
    /// When the key was revoked, if it was.
    pub revoked_at: Option<String>,
}

/// A key just made: its record and the key itself, shown this once. Its `Debug` shows
/// the record and masks the key, so that a logged value does not carry it.
#[derive(Clone)]
pub struct NewApiKey {
    /// The key's record.
    pub info: ApiKey,
    /// The key to give to the client (`Authorization: RSIS <key>`). It is not stored
    /// and cannot be shown again.
    pub key: String,
}

impl std::fmt::Debug for NewApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewApiKey").field("info", &self.info).field("key", &crate::secrets::MASK).finish()
    }
}

/// An authenticated caller of the HTTP interface: made by [`crate::Shipping::authenticate`]
/// from a valid, unrevoked key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    key_id: String,
    customer_id: Option<String>,
}

impl Caller {
    /// The id of the caller's key.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The customer a customer key acts for; `None` for a partner key.
    pub fn customer_id(&self) -> Option<&str> {
        self.customer_id.as_deref()
    }
}

/// The answer to a key that is missing, malformed, unknown or revoked: one answer for
/// all, so that it reveals nothing about which keys exist.
pub fn key_required() -> Error {
    Error::new(
        ErrorCategory::Unauthorized,
        "A valid API key is required: send `Authorization: RSIS <apiKey>` with a key from `consign keys create`.",
    )
}

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Makes a key for `customer_id` (a partner key when `None`) named `name`.
///
/// # Errors
/// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a name over 100 characters.
pub(crate) fn create(tx: &Tx<'_>, customer_id: Option<&str>, name: &str, now: DateTime<Utc>) -> Result<NewApiKey> {
    let name = name.trim();
    if name.chars().count() > MAX_NAME {
        return Err(Error::invalid("name", format!("must be at most {MAX_NAME} characters")));
    }
    if let Some(id) = customer_id {
        customers::find(tx, id)?;
    }
    let mut secret = [0u8; 32];
    getrandom::getrandom(&mut secret).map_err(|e| Error::internal(format!("no randomness for an API key: {e}")))?;
    let id = format!("K{:07}", store::next_id(tx, "api_key")?);
    let key = format!("{KEY_PREFIX}{id}_{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret));
    let created_at = crate::dates::timestamp(now);
    tx.execute(
        "INSERT INTO api_keys (id, digest, customer_id, name, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        args![id, digest(&key).as_slice(), customer_id, name, created_at],
    )?;
    let info = ApiKey { id, customer_id: customer_id.map(str::to_string), name: name.to_string(), created_at, revoked_at: None };
    Ok(NewApiKey { info, key })
}

/// A key of a row `SELECT id, customer_id, name, created_at, revoked_at`.
fn from_row(r: &Row<'_>) -> Result<ApiKey> {
    Ok(ApiKey { id: r.get(0)?, customer_id: r.get(1)?, name: r.get(2)?, created_at: r.get(3)?, revoked_at: r.get(4)? })
}

/// Every key, revoked ones included, in the order they were made.
pub(crate) fn list(conn: &Read<'_>) -> Result<Vec<ApiKey>> {
    conn.rows("SELECT id, customer_id, name, created_at, revoked_at FROM api_keys ORDER BY id", args![], from_row)
}

/// Revokes the key `id`: from now on it is refused as an unknown key.
///
/// # Errors
/// `NOT_FOUND` for an unknown key; `CONFLICT` for a key already revoked.
pub(crate) fn revoke(tx: &Tx<'_>, id: &str, now: DateTime<Utc>) -> Result<ApiKey> {
    let mut key = tx
        .row("SELECT id, customer_id, name, created_at, revoked_at FROM api_keys WHERE id = ?1", args![id], from_row)?
        .ok_or_else(|| Error::not_found("API key", id))?;
    if let Some(at) = &key.revoked_at {
        return Err(Error::conflict(format!("The API key {id} was already revoked at {at}.")));
    }
    let at = crate::dates::timestamp(now);
    tx.execute("UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1", args![id, &at])?;
    key.revoked_at = Some(at);
    Ok(key)
}

/// The caller holding `key`.
///
/// # Errors
/// `UNAUTHORIZED` for a malformed, unknown or revoked key.
pub(crate) fn authenticate(conn: &Read<'_>, key: &str) -> Result<Caller> {
    // The id is only a locator: the digest comparison below decides.
    let id = key.strip_prefix(KEY_PREFIX).and_then(|rest| rest.split_once('_')).map(|(id, _)| id).ok_or_else(key_required)?;
    let row: Option<(Vec<u8>, Option<String>, Option<String>)> =
        conn.row("SELECT digest, customer_id, revoked_at FROM api_keys WHERE id = ?1", args![id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?;
    match row {
        Some((stored, customer_id, None)) if bool::from(stored.as_slice().ct_eq(&digest(key))) => {
            Ok(Caller { key_id: id.to_string(), customer_id })
        }
        _ => Err(key_required()),
    }
}

/// Whether `caller` acts for the customer `customer_id`.
pub(crate) fn acts_for(conn: &Read<'_>, caller: &Caller, customer_id: &str) -> Result<bool> {
    match &caller.customer_id {
        Some(own) => Ok(own == customer_id),
        None => Ok(conn
            .row("SELECT 1 FROM api_key_customers WHERE key_id = ?1 AND customer_id = ?2", args![caller.key_id, customer_id], |_| Ok(()))?
            .is_some()),
    }
}

/// Records that the partner key of `caller` acts for `customer_id` from `now` (once: a
/// second connection keeps the first time).
///
/// # Errors
/// `UNAUTHORIZED` for a customer key, which acts for its own customer only.
pub(crate) fn link(tx: &Tx<'_>, caller: &Caller, customer_id: &str, now: DateTime<Utc>) -> Result<()> {
    if caller.customer_id.is_some() {
        return Err(partner_only());
    }
    tx.execute(
        "INSERT INTO api_key_customers (key_id, customer_id, connected_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
        args![caller.key_id, customer_id, crate::dates::timestamp(now)],
    )?;
    Ok(())
}

/// The partner keys linked to `customer_id`, in the order of their ids.
pub(crate) fn partners(conn: &Read<'_>, customer_id: &str) -> Result<Vec<wire::Partner>> {
    conn.rows(
        "SELECT k.id, k.name, l.connected_at, k.revoked_at FROM api_key_customers l JOIN api_keys k ON k.id = l.key_id
         WHERE l.customer_id = ?1 ORDER BY k.id",
        args![customer_id],
        |r| Ok(wire::Partner { key_id: r.get(0)?, name: r.get(1)?, connected_at: r.get(2)?, revoked_at: r.get(3)? }),
    )
}

/// Removes the link of the partner key `key_id` to `customer_id`.
///
/// # Errors
/// `NOT_FOUND` when the key is not linked to the customer.
pub(crate) fn disconnect(tx: &Tx<'_>, key_id: &str, customer_id: &str) -> Result<wire::OkResponse> {
    let removed = tx.execute("DELETE FROM api_key_customers WHERE key_id = ?1 AND customer_id = ?2", args![key_id, customer_id])?;
    if removed == 0 {
        return Err(not_connected(key_id, customer_id));
    }
    Ok(wire::OkResponse::OK)
}

/// The answer for a key that is not a partner connected to the customer.
pub(crate) fn not_connected(key_id: &str, customer_id: &str) -> Error {
    Error::new(ErrorCategory::NotFound, format!("No partner key {key_id:?} is connected to customer {customer_id:?}."))
}

/// The answer to a customer key on an operation of partner keys (create and connect
/// customers).
pub(crate) fn partner_only() -> Error {
    Error::new(
        ErrorCategory::Unauthorized,
        "This API key acts for one customer only; creating or connecting customers needs a partner key (`consign keys create` without --customer).",
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code: a panic is a failed test")]

    use crate::{ErrorCategory, Shipping};

    fn customer_body(email: &str) -> String {
        let address = r#"{"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "", "city": "Springfield",
            "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"}"#;
        format!(
            r#"{{"profileCode": "Default", "email": "{email}", "password": "correct horse", "mailingAddress": {address},
                "billingAddress": {address}, "prepaySettings": {{"minimumBalance": "25.00", "rechargeAmount": 100}}}}"#
        )
    }

    fn created(r: &crate::Response) -> String {
        assert_eq!(r.status, 201, "{}", r.body);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        v["customerId"].as_str().unwrap().to_string()
    }

    #[test]
    fn a_key_is_shown_once_stored_as_a_digest_and_refused_once_revoked() {
        let s = Shipping::open_in_memory().unwrap();
        let new = s.create_api_key(None, "  shop  ").unwrap();
        assert!(new.key.starts_with("csk_K0000001_"), "{}", new.key);
        assert_eq!(new.key.len(), "csk_K0000001_".len() + 43, "32 bytes in base64url");
        assert_eq!(new.info.name, "shop");
        let stored: Vec<u8> = s.read(|c| c.one("SELECT digest FROM api_keys", &[], |r| r.get(0))).unwrap();
        assert_eq!(stored, super::digest(&new.key).to_vec());
        let caller = s.authenticate(&new.key).unwrap();
        assert_eq!((caller.key_id(), caller.customer_id()), ("K0000001", None));

        // One answer for a malformed, altered, unknown or revoked key.
        let mut altered = new.key.clone();
        altered.pop();
        altered.push(if new.key.ends_with('A') { 'B' } else { 'A' });
        for bad in ["", "csk_", "nonsense", "csk_K0000009_abc", altered.as_str()] {
            assert_eq!(s.authenticate(bad).unwrap_err(), super::key_required(), "{bad:?}");
        }
        let revoked = s.revoke_api_key("K0000001").unwrap();
        assert!(revoked.revoked_at.is_some());
        assert_eq!(s.authenticate(&new.key).unwrap_err(), super::key_required());
        assert_eq!(s.revoke_api_key("K0000001").unwrap_err().category(), ErrorCategory::Conflict);
        assert_eq!(s.revoke_api_key("K0000002").unwrap_err().category(), ErrorCategory::NotFound);
        assert_eq!(s.api_keys().unwrap(), vec![revoked]);
        assert_eq!(s.create_api_key(Some("C0000001"), "").unwrap_err().category(), ErrorCategory::NotFound);
        assert_eq!(s.create_api_key(None, &"x".repeat(101)).unwrap_err().category(), ErrorCategory::InvalidRequest);
    }

    #[test]
    fn a_key_acts_for_its_customer_or_for_those_its_partner_created_or_connected() {
        let s = Shipping::open_in_memory().unwrap();
        let partner = s.authenticate(&s.create_api_key(None, "partner").unwrap().key).unwrap();
        let other = s.authenticate(&s.create_api_key(None, "other").unwrap().key).unwrap();
        let ann = created(&s.handle_as(&partner, "POST", "/restapi/v1/customers", &customer_body("ann@example.com")));
        let bob = created(&s.handle("POST", "/restapi/v1/customers", &customer_body("bob@example.com")));
        let prepay = |id: &str| format!("/restapi/v1/customers/{id}/prepay");

        assert_eq!(s.handle_as(&partner, "GET", &prepay(&ann), "").status, 200);
        // Another customer answers exactly as an unknown one.
        let unknown = s.handle("GET", &prepay("C0000099"), "");
        let hidden = s.handle_as(&partner, "GET", &prepay(&bob), "");
        assert_eq!((hidden.status, hidden.body.replace(&bob, "C0000099")), (unknown.status, unknown.body));
        assert_eq!(s.handle_as(&other, "GET", &prepay(&ann), "").status, 404);

        // Connecting Bob with his e-mail and password lets the partner act for him; a wrong
        // password does not.
        let connect = |caller, password: &str| {
            s.handle_as(
                caller,
                "POST",
                "/restapi/v1/connect-customer",
                &format!(r#"{{"username": "BOB@example.com", "password": "{password}"}}"#),
            )
        };
        assert_eq!(connect(&other, "wrong horse").status, 401);
        assert_eq!(s.handle_as(&other, "GET", &prepay(&bob), "").status, 404);
        assert_eq!(connect(&partner, "correct horse").status, 200);
        assert_eq!(connect(&partner, "correct horse").status, 200, "connecting twice is harmless");
        assert_eq!(s.handle_as(&partner, "GET", &prepay(&bob), "").status, 200);

        // A customer key acts for its customer alone and may not create or connect.
        let own = s.authenticate(&s.create_api_key(Some(&ann), "till").unwrap().key).unwrap();
        assert_eq!(own.customer_id(), Some(ann.as_str()));
        assert_eq!(s.handle_as(&own, "GET", &prepay(&ann), "").status, 200);
        assert_eq!(s.handle_as(&own, "GET", &prepay(&bob), "").status, 404);
        let refused = s.handle_as(&own, "POST", "/restapi/v1/customers", &customer_body("cy@example.com"));
        assert_eq!(refused, crate::Response::error(&super::partner_only()));
        assert_eq!(connect(&own, "correct horse").status, 401);
        // Routing answers come before the customer check: a wrong method is still 405.
        assert_eq!(s.handle_as(&own, "DELETE", &prepay(&ann), "").status, 405);
    }

    #[test]
    fn every_route_either_names_a_customer_or_is_a_partner_operation() {
        let s = Shipping::open_in_memory().unwrap();
        let partner = s.authenticate(&s.create_api_key(None, "").unwrap().key).unwrap();
        for (method, pattern) in crate::router::routes() {
            let path = pattern.replace(":customerId", "C0000001").replace(':', "");
            let r = s.handle_as(&partner, method, &path, "{}");
            assert_ne!(r.status, 500, "{method} {path}: {}", r.body);
        }
    }
}
