//! The event feed of the facade: list events, and the purge of old ones.

use super::{CustomerId, Shipping};
use crate::error::Result;
use crate::events;
use crate::wire;

impl Shipping {
    /// List events, `GET .../customers/:customerId/events?after=&limit=&types=`: the
    /// customer's events after the cursor `after` (from the oldest kept when `None`),
    /// oldest first, at most `limit` (1 to [`crate::MAX_EVENTS_PAGE`], 100 when `None`)
    /// and at most [`crate::MAX_EVENTS_PAGE_BYTES`] of data, of the types `types` names
    /// (a comma-separated list of names and `prefix.*`; every type when `None` or
    /// empty). A page filtered by type reads at most [`crate::MAX_EVENTS_SCANNED`]
    /// events, and may then hold none: page on with `nextCursor` while `hasMore`.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use consign::{CustomerId, FixedClock, Shipping};
    /// let shipping = Shipping::builder().clock(Arc::new(FixedClock::at("2026-11-21T09:00:00Z").unwrap())).open().unwrap();
    /// # let address = r#"{"name": "Ann Lee", "company": "", "address1": "1 Main St", "address2": "", "city": "Springfield",
    /// #     "state": "IL", "zip": "62701", "country": "US", "phone": "217-555-0100"}"#;
    /// # let body = format!(r#"{{"profileCode": "Default", "email": "ann@example.com", "password": "correct horse",
    /// #     "mailingAddress": {address}, "billingAddress": {address},
    /// #     "prepaySettings": {{"minimumBalance": 0, "rechargeAmount": 100}}}}"#);
    /// let created = shipping.handle("POST", "/restapi/v1/customers", &body);
    /// let id: serde_json::Value = serde_json::from_str(&created.body).unwrap();
    /// let id = CustomerId(id["customerId"].as_str().unwrap());
    /// // Opening the account recharged its prepay balance: the first event.
    /// let page = shipping.events(id, None, Some("prepay.*"), None).unwrap();
    /// assert_eq!(page.events[0].kind, "prepay.recharged");
    /// let next = shipping.events(id, Some(&page.next_cursor), None, Some(10)).unwrap();
    /// assert!(next.events.is_empty() && !next.has_more);
    /// ```
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `GONE` when events after `after` were purged
    /// (the message names the oldest cursor kept); `INVALID_REQUEST` naming `after` (not
    /// a whole number, or past the newest event), `limit` or `types` (a name that is no
    /// event type).
    pub fn events(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        after: Option<&str>,
        types: Option<&str>,
        limit: Option<i64>,
    ) -> Result<wire::EventsResponse> {
        let after = after.map(events::cursor).transpose()?;
        let types = events::filter(types.unwrap_or_default())?;
        let limit = events::page_size(limit)?;
        self.read_for(customer_id, |conn| events::page(conn, customer_id, after, types, limit))
    }

    /// Removes at most `at_most` events older than [`crate::EVENTS_KEPT_DAYS`] days, the
    /// oldest first (then, with the feature `webhooks`, webhook delivery attempts as old),
    /// in one transaction, and returns how many it removed (fewer than
    /// `at_most`: none are left). Each customer's newest event stays, whatever its age:
    /// the next is numbered from it. `consign serve` purges with its daily purge;
    /// `consign purge-events` does it from the command line.
    ///
    /// # Errors
    /// Only on a storage failure, or `BUSY`.
    pub fn purge_expired_events(&self, at_most: u32) -> Result<u64> {
        let now = self.clock().now();
        self.write(|tx| {
            let removed = events::purge(tx, now, at_most)?;
            // Webhook delivery attempts are kept as long as events, in the same parts.
            #[cfg(feature = "webhooks")]
            let removed = removed + crate::webhooks::purge(tx, now, at_most.saturating_sub(u32::try_from(removed).unwrap_or(u32::MAX)))?;
            Ok(removed)
        })
    }
}
