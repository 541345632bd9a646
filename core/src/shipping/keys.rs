//! The facade's operations on API keys (DECISIONS 9): issuing, listing and revoking them
//! (the CLI's `consign keys`), telling who a caller is, and the partners connected to a
//! customer: listed and disconnected.

use super::ids::CustomerId;
use super::Shipping;
use crate::error::Result;
use crate::keys::{self, ApiKey, Caller, NewApiKey};
use crate::wire;

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
        self.read_latest(|conn| keys::authenticate(conn, key))
    }

    /// Whether `caller` acts for the customer `customer_id`.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn acts_for(&self, caller: &Caller, customer_id: &str) -> Result<bool> {
        self.read(|conn| keys::acts_for(conn, caller, customer_id))
    }

    /// The partner keys connected to the customer `customer_id` (those that created or
    /// connected it), revoked ones included, in the order of their ids. Never the keys
    /// themselves.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn partners(&self, customer_id: &str) -> Result<wire::PartnersResponse> {
        self.read_for(customer_id, |conn| Ok(wire::PartnersResponse { partners: keys::partners(conn, customer_id)? }))
    }

    /// Disconnects the partner key `key_id` from the customer `customer_id` (`consign keys
    /// disconnect`): the key no longer acts for the customer, from the next request on. It
    /// acts for the customer again only once it connects it anew, with the customer's
    /// e-mail and password.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, or a key not connected to it.
    pub fn disconnect_partner(&self, CustomerId(customer_id): CustomerId<'_>, key_id: &str) -> Result<wire::OkResponse> {
        self.write_for(customer_id, |tx| keys::disconnect(tx, key_id, customer_id))
    }

    /// The partners of `customer_id` as `caller` sees them: a customer key, every partner
    /// connected to its customer; a partner key, only itself (the others are no business
    /// of one partner).
    ///
    /// # Errors
    /// `NOT_FOUND` for a customer the caller does not act for.
    pub(crate) fn partners_as(&self, caller: &Caller, customer_id: &str) -> Result<wire::PartnersResponse> {
        let mut all = self.partners(customer_id)?;
        if caller.customer_id().is_none() {
            all.partners.retain(|p| p.key_id == caller.key_id());
        }
        Ok(all)
    }

    /// Disconnects the partner `key_id` from `customer_id` on behalf of `caller`: a
    /// customer key may disconnect any partner of its customer; a partner key only
    /// itself, and another partner is `NOT_FOUND`, as one it cannot see.
    ///
    /// # Errors
    /// As [`Shipping::disconnect_partner`].
    pub(crate) fn disconnect_partner_as(&self, caller: &Caller, customer_id: &str, key_id: &str) -> Result<wire::OkResponse> {
        if caller.customer_id().is_none() && caller.key_id() != key_id {
            return Err(keys::not_connected(key_id, customer_id));
        }
        self.disconnect_partner(crate::CustomerId(customer_id), key_id)
    }
}
