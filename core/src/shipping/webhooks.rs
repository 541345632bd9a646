//! Webhook endpoints of the facade (feature `webhooks`): create, list, get, update,
//! delete, rotate secret, deliveries, replay and test; and the claim and record of
//! deliveries that `consign serve` posts.

use super::{CustomerId, Shipping};
use crate::error::{Error, Result};
use crate::webhooks::{self, Attempt, Delivery};
use crate::wire;

/// Most delivery attempts a page of list deliveries holds; 100 when the reader names no `limit`.
pub const MAX_DELIVERIES_PAGE: i64 = 1000;

impl Shipping {
    /// Create webhook, `POST .../customers/:customerId/webhooks` `{url, types,
    /// description, format}`: an endpoint receiving the customer's events committed from
    /// now on, of `types` (every type when empty); the answer holds its signing secret,
    /// shown only here.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` naming `url` (not
    /// `https://`, credentials in it, a private or loopback host), `types`, `description`
    /// or `format`; `LIMIT_EXCEEDED` past [`crate::MAX_WEBHOOKS`] endpoints.
    pub fn create_webhook(&self, CustomerId(customer_id): CustomerId<'_>, req: &wire::WebhookRequest) -> Result<wire::CreatedWebhook> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| webhooks::create(tx, self.sealer.as_ref(), customer_id, req, now, self.allow_http_webhooks))
    }

    /// List webhooks, `GET .../webhooks`: the customer's endpoints, oldest first (by URL
    /// among those created in the same second).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer.
    pub fn webhooks(&self, CustomerId(customer_id): CustomerId<'_>) -> Result<wire::WebhooksResponse> {
        self.read_for(customer_id, |conn| webhooks::list(conn, customer_id))
    }

    /// Get webhook, `GET .../webhooks/:webhookId`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or endpoint (or another customer's).
    pub fn webhook(&self, CustomerId(customer_id): CustomerId<'_>, webhook_id: &str) -> Result<wire::Webhook> {
        self.read_for(customer_id, |conn| webhooks::get(conn, customer_id, webhook_id))
    }

    /// Update webhook, `PUT .../webhooks/:webhookId`: replaces the URL, types,
    /// description and format; `enabled: true` re-enables a disabled endpoint.
    ///
    /// # Errors
    /// As [`Shipping::create_webhook`], and `NOT_FOUND` for an unknown endpoint.
    pub fn update_webhook(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        webhook_id: &str,
        req: &wire::WebhookRequest,
    ) -> Result<wire::Webhook> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| webhooks::update(tx, customer_id, webhook_id, req, now, self.allow_http_webhooks))
    }

    /// Delete webhook, `DELETE .../webhooks/:webhookId`: the endpoint and its deliveries;
    /// answers the endpoint as it was.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or endpoint.
    pub fn delete_webhook(&self, CustomerId(customer_id): CustomerId<'_>, webhook_id: &str) -> Result<wire::Webhook> {
        self.write_for(customer_id, |tx| webhooks::delete(tx, customer_id, webhook_id))
    }

    /// Rotate secret, `POST .../webhooks/:webhookId/rotate-secret`: a new signing secret,
    /// shown only here; the previous one signs deliveries too for
    /// [`crate::WEBHOOK_ROTATION_OVERLAP_HOURS`] hours, so that receivers can switch.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or endpoint.
    pub fn rotate_webhook_secret(&self, CustomerId(customer_id): CustomerId<'_>, webhook_id: &str) -> Result<wire::WebhookSecret> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| webhooks::rotate(tx, self.sealer.as_ref(), customer_id, webhook_id, now))
    }

    /// List deliveries, `GET .../webhooks/:webhookId/deliveries?limit=`: the endpoint's
    /// delivery attempts, newest first, at most `limit` (1 to [`MAX_DELIVERIES_PAGE`],
    /// 100 when `None`).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or endpoint; `INVALID_REQUEST` naming `limit`.
    pub fn webhook_deliveries(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        webhook_id: &str,
        limit: Option<i64>,
    ) -> Result<wire::WebhookDeliveriesResponse> {
        let limit = match limit {
            None => 100,
            Some(n) if (1..=MAX_DELIVERIES_PAGE).contains(&n) => n,
            Some(n) => return Err(Error::invalid("limit", format!("expected a whole number from 1 to {MAX_DELIVERIES_PAGE}, found {n}"))),
        };
        self.read_for(customer_id, |conn| webhooks::deliveries(conn, customer_id, webhook_id, limit))
    }

    /// Replay, `POST .../webhooks/:webhookId/replay {after}`: the events after the cursor
    /// `after` are delivered again, in order, with their `webhook-id`s of before; a
    /// disabled endpoint is enabled again.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or endpoint; `INVALID_REQUEST` naming `after`;
    /// `GONE` when the events after it are no longer kept.
    pub fn replay_webhook(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        webhook_id: &str,
        req: &wire::ReplayWebhookRequest,
    ) -> Result<wire::Webhook> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| webhooks::replay(tx, customer_id, webhook_id, req, now))
    }

    /// Test webhook, `POST .../webhooks/:webhookId/test`: a `webhook.test` message goes to
    /// the endpoint with the next deliveries (not retried; its attempt shows in list
    /// deliveries).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or endpoint.
    pub fn test_webhook(&self, CustomerId(customer_id): CustomerId<'_>, webhook_id: &str) -> Result<wire::Webhook> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| webhooks::request_test(tx, customer_id, webhook_id, now))
    }

    /// Whether a message is due for delivery (see [`Shipping::claim_webhook_deliveries`]):
    /// a read, for a deliverer to look before it claims.
    ///
    /// # Errors
    /// A storage failure.
    pub fn webhook_deliveries_due(&self) -> Result<bool> {
        let now = self.clock().now();
        self.read(|conn| webhooks::due(conn, now))
    }

    /// Claims at most `at_most` messages due for delivery, each held for `lease` (past
    /// it, should this service not record its attempt, another may claim it again), in
    /// one transaction: the deliverer of `consign serve`. Post each, then record the
    /// attempt with [`Shipping::record_webhook_attempt`].
    ///
    /// # Errors
    /// A storage failure, `BUSY`, or `INTERNAL` when a sealed secret does not open.
    pub fn claim_webhook_deliveries(&self, lease: std::time::Duration, at_most: usize) -> Result<Vec<Delivery>> {
        let now = self.clock().now();
        let lease = chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::MAX);
        self.write(|tx| webhooks::claim(tx, self.sealer.as_ref(), now, lease, at_most))
    }

    /// Records `attempt` at `delivery` (see [`Shipping::claim_webhook_deliveries`]): a
    /// 2xx moves the endpoint past its event; a failure schedules the retry, or past the
    /// last disables the endpoint and writes a `webhook.disabled` event.
    ///
    /// # Errors
    /// A storage failure, or `BUSY`.
    pub fn record_webhook_attempt(&self, delivery: &Delivery, attempt: &Attempt) -> Result<()> {
        let now = self.clock().now();
        self.write(|tx| webhooks::record(tx, delivery, attempt, now))
    }
}
