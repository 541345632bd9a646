//! The facade's operations after booking that hand shipments over or tie them to
//! orders: pickups (4.7), manifests (4.10) and orders (4.2, with get and delete of
//! DECISIONS 9).

use super::ids::CustomerId;
use super::Shipping;
use crate::error::Result;
use crate::{manifests, orders, pickups, wire};

impl Shipping {
    /// Schedule pickup (4.7), `POST .../pickups`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or a book number that is unknown or another
    /// customer's (`bookNumbers[i]`); `INVALID_REQUEST` for a bad date, time window or
    /// address, a voided shipment, shipments of several carriers or of another carrier
    /// than `carrierCode`, carrier D Ground with Express, `packageLocation` off carrier C;
    /// `CONFLICT` for a shipment already on a pickup that is not cancelled.
    pub fn schedule_pickup(&self, customer_id: &str, req: &wire::SchedulePickupRequest) -> Result<wire::PickupIdResponse> {
        let catalog = self.catalog();
        let (today, now) = (self.clock().today(), self.clock().now());
        self.write_for(customer_id, |tx| pickups::schedule(tx, &catalog, customer_id, req, today, now))
    }

    /// Get pickup, `GET .../pickups/:pickupId`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or pickup (or another customer's).
    pub fn pickup(&self, CustomerId(customer_id): CustomerId<'_>, pickup_id: &str) -> Result<wire::Pickup> {
        self.read_for(customer_id, |conn| pickups::get(conn, customer_id, pickup_id))
    }

    /// Cancel pickup (DECISIONS 9), `POST .../pickups/:pickupId` `{"cancelled": true}`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or pickup (or another customer's);
    /// `INVALID_REQUEST` for `cancelled` false; `CONFLICT` when already cancelled.
    pub fn cancel_pickup(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        pickup_id: &str,
        req: &wire::CancelPickupRequest,
    ) -> Result<wire::Pickup> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| pickups::cancel(tx, customer_id, pickup_id, req, now))
    }

    /// Create manifest (4.10), `POST .../manifest`: a PDF (base64) of the shipments.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or book number (or another customer's);
    /// `INVALID_REQUEST` for a bad address, a voided shipment, shipments of several
    /// carriers or of another carrier than `carrierCode`; `CONFLICT` for a shipment
    /// already on a manifest.
    pub fn create_manifest(&self, customer_id: &str, req: &wire::CreateManifestRequest) -> Result<wire::ManifestResponse> {
        let catalog = self.catalog();
        let (today, now) = (self.clock().today(), self.clock().now());
        self.write_for(customer_id, |tx| manifests::create(tx, &catalog, customer_id, req, today, now))
    }

    /// Get manifest, `GET .../manifest/:manifestId`: the same document as created.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or manifest (or another customer's).
    pub fn manifest(&self, CustomerId(customer_id): CustomerId<'_>, manifest_id: &str) -> Result<wire::ManifestResponse> {
        self.read_for(customer_id, |conn| manifests::get(conn, customer_id, manifest_id))
    }

    /// Put order (4.2), `PUT .../integrations/:integrationId/orders/:orderId`: creates
    /// or replaces the order.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or integration (or another customer's);
    /// `INVALID_REQUEST` naming each field at fault.
    pub fn put_order(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        integration_id: &str,
        order_id: &str,
        req: &wire::Order,
    ) -> Result<wire::OkResponse> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| orders::put(tx, customer_id, integration_id, order_id, req, now))
    }

    /// Get order (DECISIONS 9): the order as put, with its current `fulfillmentStatus`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, integration or order (or another customer's).
    pub fn order(&self, CustomerId(customer_id): CustomerId<'_>, integration_id: &str, order_id: &str) -> Result<wire::Order> {
        self.read_for(customer_id, |conn| orders::get(conn, customer_id, integration_id, order_id))
    }

    /// Delete order (DECISIONS 9).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, integration or order (or another customer's).
    pub fn delete_order(&self, CustomerId(customer_id): CustomerId<'_>, integration_id: &str, order_id: &str) -> Result<wire::OkResponse> {
        let now = self.clock().now();
        self.write_for(customer_id, |tx| orders::delete(tx, customer_id, integration_id, order_id, now))
    }
}
