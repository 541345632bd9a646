//! The facade's operations on customers and their accounts: customers (4.9), connect
//! customer, payment method (4.12), services (4.4), integrated quoting options (4.8),
//! provider accounts (4.11), regional shipment types (4.13), integrations and prepay.

use std::collections::BTreeMap;

use super::ids::CustomerId;
use super::Shipping;
use crate::error::Result;
use crate::{accounts, customers, ledger, wire};

impl Shipping {
    /// Update payment method (4.12), `POST .../paymentMethod`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a bad address, token
    /// type, or a token that looks like a card number.
    pub fn update_payment_method(&self, customer_id: &str, req: &wire::UpdatePaymentMethodRequest) -> Result<wire::OkResponse> {
        let now = self.clock.now();
        self.write_for(customer_id, |tx| customers::update_payment_method(tx, self.sealer.as_ref(), customer_id, req, now))
    }

    /// List services (4.4), `GET .../services`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn list_services(&self, customer_id: &str) -> Result<wire::ServicesResponse> {
        self.read(|conn| {
            let (customer, catalog) = self.customer(conn, customer_id)?;
            Ok(catalog.list_services(Self::profile(&catalog, &customer)?))
        })
    }

    /// List integrated quoting options (4.8), `GET .../integratedQuotingOptions`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn integrated_quoting_options(&self, customer_id: &str) -> Result<wire::IntegratedQuotingOptions> {
        self.read_for(customer_id, |conn| accounts::quoting_options(conn, customer_id))
    }

    /// Set integrated quoting options, `PUT .../integratedQuotingOptions` (the whole list).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for an unknown or unoffered
    /// carrier, service or package type, or a repeated name.
    pub fn set_integrated_quoting_options(
        &self,
        customer_id: &str,
        req: &wire::IntegratedQuotingOptions,
    ) -> Result<wire::IntegratedQuotingOptions> {
        self.write(|tx| {
            crate::store::lock_customer(tx, customer_id)?;
            let (customer, catalog) = self.customer(tx, customer_id)?;
            accounts::set_quoting_options(tx, &catalog, Self::profile(&catalog, &customer)?, customer_id, req)
        })
    }

    /// List provider accounts (4.11), `GET .../provider-accounts`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn provider_accounts(&self, customer_id: &str) -> Result<wire::ProviderAccountsResponse> {
        self.read_for(customer_id, |conn| accounts::list_provider_accounts(conn, customer_id))
    }

    /// Put provider account, `PUT .../provider-accounts/:providerCode`. A field sent as
    /// [`crate::MASK`] keeps its stored value, so a list-edit-put round trip changes only
    /// what was edited; the values are sealed at rest when the service has a key
    /// ([`crate::ShippingBuilder::secret_key`]).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or provider; `INVALID_REQUEST` for fields the
    /// provider does not have or lacks, or a mask with no stored value behind it.
    pub fn put_provider_account(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        provider_code: &str,
        req: &wire::PutProviderAccountRequest,
    ) -> Result<wire::ProviderAccount> {
        let now = self.clock.now();
        self.write(|tx| {
            crate::store::lock_customer(tx, customer_id)?;
            let (_, catalog) = self.customer(tx, customer_id)?;
            accounts::put_provider_account(tx, &catalog, self.sealer.as_ref(), customer_id, provider_code, req, now)
        })
    }

    /// The fields of the customer's provider account `id` with their values in clear, for
    /// the application that signs in to the carrier with them (Rust only: no route
    /// answers them). Values sealed at rest are opened with the service's key.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or account, or another customer's account;
    /// `INTERNAL` when a value is sealed and the service has no key or another one.
    pub fn provider_account_fields(&self, CustomerId(customer_id): CustomerId<'_>, id: &str) -> Result<BTreeMap<String, String>> {
        self.read_for(customer_id, |conn| accounts::provider_account_fields(conn, self.sealer.as_ref(), customer_id, id))
    }

    /// The customer's payment token in clear, or `None` without a payment method, for
    /// the application that charges recharges with its payment processor (Rust only).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INTERNAL` when the token is sealed and the
    /// service has no key or another one.
    pub fn payment_token(&self, customer_id: &str) -> Result<Option<String>> {
        self.read_for(customer_id, |conn| customers::payment_token(conn, self.sealer.as_ref(), customer_id))
    }

    /// Seals every provider account field and payment token stored in clear (stored
    /// before the service was opened with [`ShippingBuilder::secret_key`](crate::ShippingBuilder::secret_key)),
    /// in one transaction, and returns how many values it sealed; without a key it does
    /// nothing. SQLite overwrites the clear text it frees, and the write-ahead log is
    /// emptied after (when no other connection reads), so the file no longer holds it;
    /// copies and exports made before still do. `consign serve` runs it when it starts.
    ///
    /// # Errors
    /// `INTERNAL` when values sealed before do not open with this key (the database was
    /// sealed with another one; nothing is written), or a stored row is unreadable;
    /// `BUSY` as every write.
    pub fn seal_stored_secrets(&self) -> Result<usize> {
        let Some(sealer) = self.sealer.as_ref() else { return Ok(0) };
        let sealed = self.write(|tx| crate::secrets::seal_stored(tx, sealer))?;
        if sealed > 0 {
            // The log's frames of earlier writes may still hold the clear values: a
            // truncating checkpoint drops them (it gives way to readers, and the next
            // checkpoint then overwrites them).
            self.db.truncate_log();
        }
        Ok(sealed)
    }

    /// Delete provider account, `DELETE .../provider-accounts/:id`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or account, or another customer's account.
    pub fn delete_provider_account(&self, CustomerId(customer_id): CustomerId<'_>, id: &str) -> Result<wire::OkResponse> {
        self.write_for(customer_id, |tx| accounts::delete_provider_account(tx, customer_id, id))
    }

    /// Regional shipment types (4.13), `GET .../regionalShipmentTypes/:postalCode`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a postal code that is
    /// neither a US ZIP in use nor a Canadian postal code.
    pub fn regional_shipment_types(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        postal_code: &str,
    ) -> Result<wire::RegionalShipmentTypesResponse> {
        self.read(|conn| {
            let (customer, catalog) = self.customer(conn, customer_id)?;
            accounts::regional_shipment_types(&catalog, Self::profile(&catalog, &customer)?, postal_code)
        })
    }

    /// Create integration, `POST .../integrations`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for an empty name.
    pub fn create_integration(&self, customer_id: &str, req: &wire::CreateIntegrationRequest) -> Result<wire::CreateIntegrationResponse> {
        let now = self.clock.now();
        self.write_for(customer_id, |tx| accounts::create_integration(tx, customer_id, req, now))
    }

    /// Prepay balance and ledger, `GET .../prepay`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn prepay(&self, customer_id: &str) -> Result<wire::PrepayResponse> {
        self.read_for(customer_id, |conn| ledger::prepay(conn, customer_id))
    }
}
