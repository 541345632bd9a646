//! The facade's operations on API keys (DECISIONS 9): issuing, listing and revoking them
//! (the CLI's `consign keys`), telling who a caller is, and the partner variants of create
//! and connect customer.

use super::Shipping;
use crate::error::Result;
use crate::keys::{self, ApiKey, Caller, NewApiKey};
use crate::{customers, wire};

impl Shipping {
    /// Makes an API key for the HTTP interface: for `customer_id` alone, or a partner key
    /// (`None`) that acts for the customers it creates or connects. The key is in the
    /// answer only; the database keeps its digest.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a name over 100 characters.
    pub fn create_api_key(&self, customer_id: Option<&str>, name: &str) -> Result<NewApiKey> {
        let now = self.clock.now();
        self.write(|tx| keys::create(tx, customer_id, name, now))
    }

    /// Every API key, revoked ones included, in the order they were made.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn api_keys(&self) -> Result<Vec<ApiKey>> {
        self.read(keys::list)
    }

    /// Revokes the API key `id`; it is refused from then on.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown key; `CONFLICT` for a key already revoked.
    pub fn revoke_api_key(&self, id: &str) -> Result<ApiKey> {
        let now = self.clock.now();
        self.write(|tx| keys::revoke(tx, id, now))
    }

    /// The caller holding the API key `key` (as sent after `RSIS` or `Bearer`).
    ///
    /// # Errors
    /// `UNAUTHORIZED` for a malformed, unknown or revoked key.
    pub fn authenticate(&self, key: &str) -> Result<Caller> {
        self.read(|conn| keys::authenticate(conn, key))
    }

    /// Whether `caller` acts for the customer `customer_id`.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn acts_for(&self, caller: &Caller, customer_id: &str) -> Result<bool> {
        self.read(|conn| keys::acts_for(conn, caller, customer_id))
    }

    /// Create customer (4.9) by the partner key of `caller`, which acts for the new
    /// customer from the same transaction on.
    ///
    /// # Errors
    /// As [`Shipping::create_customer`]; `UNAUTHORIZED` for a customer key.
    pub fn create_customer_as(&self, caller: &Caller, req: &wire::CreateCustomerRequest) -> Result<wire::CustomerIdResponse> {
        if caller.customer_id().is_some() {
            return Err(keys::partner_only());
        }
        let new = customers::prepare(&self.catalog(), req)?;
        let now = self.clock.now();
        self.write(|tx| {
            let created = customers::create(tx, new, now)?;
            keys::link(tx, caller, &created.customer_id)?;
            Ok(created)
        })
    }

    /// Connect customer by the partner key of `caller`: with the customer's e-mail and
    /// password, the key acts for that customer from then on.
    ///
    /// # Errors
    /// As [`Shipping::connect_customer`]; `UNAUTHORIZED` for a customer key.
    pub fn connect_customer_as(&self, caller: &Caller, req: &wire::ConnectCustomerRequest) -> Result<wire::CustomerIdResponse> {
        if caller.customer_id().is_some() {
            return Err(keys::partner_only());
        }
        let connected = self.connect_customer(req)?;
        self.write(|tx| keys::link(tx, caller, &connected.customer_id))?;
        Ok(connected)
    }
}
