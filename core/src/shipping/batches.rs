//! The facade's batch operations (DECISIONS 9): create, add quotes, get, list, delete
//! and book a batch.

use super::ids::CustomerId;
use super::Shipping;
use crate::error::Result;
use crate::{batches, wire};

impl Shipping {
    /// Create batch, `POST .../batch` -> `{batchId}`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn create_batch(&self, customer_id: &str, req: &wire::CreateBatchRequest) -> Result<wire::CreateBatchResponse> {
        let now = self.clock.now();
        self.write_for(customer_id, |tx| batches::create(tx, customer_id, req, now))
    }

    /// Add quotes to batch, `POST .../batch/:batchId/quotes` `{quoteIds}`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, batch or quote (or another customer's);
    /// `QUOTE_EXPIRED` for a quote older than 30 days; `CONFLICT` for a booked batch.
    pub fn add_quotes_to_batch(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        batch_id: &str,
        req: &wire::AddQuotesRequest,
    ) -> Result<wire::Batch> {
        let now = self.clock.now();
        self.write_for(customer_id, |tx| batches::add_quotes(tx, customer_id, batch_id, req, now))
    }

    /// Get batch, `GET .../batch/:batchId`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or batch.
    pub fn batch(&self, CustomerId(customer_id): CustomerId<'_>, batch_id: &str) -> Result<wire::Batch> {
        self.read_for(customer_id, |conn| batches::get(conn, customer_id, batch_id))
    }

    /// List batches, `GET .../batch`, newest first.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn batches(&self, customer_id: &str) -> Result<wire::BatchesResponse> {
        self.read_for(customer_id, |conn| batches::list(conn, customer_id))
    }

    /// Delete batch, `DELETE .../batch/:batchId` (open batches only).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or batch; `CONFLICT` for a booked batch.
    pub fn delete_batch(&self, CustomerId(customer_id): CustomerId<'_>, batch_id: &str) -> Result<wire::OkResponse> {
        self.write_for(customer_id, |tx| batches::delete(tx, customer_id, batch_id))
    }

    /// Batch book, `POST .../batch-book` `{batchId}`: every quote booked at its price,
    /// each with its own ledger entry and labels, reported one by one.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or batch; `CONFLICT` for a booked batch.
    pub fn batch_book(&self, customer_id: &str, req: &wire::BatchBookRequest) -> Result<wire::BatchBookResponse> {
        self.write_booking(customer_id, |tx, ctx| batches::book(tx, ctx, req))
    }
}
