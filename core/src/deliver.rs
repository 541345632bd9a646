//! The operations after booking, on the facade: search shipments
//! (4.3), tracking (4.6) and its carrier feed, pickups (4.7), manifests (4.10) and
//! orders (4.2, with get and delete of DECISIONS 9).

use crate::error::{Error, ErrorCategory, FieldError, Problems, Result};
use crate::shipping::Shipping;
use crate::tracking::{self, MAX_FEED_EVENTS};
use crate::wire;
use crate::{booking, customers, manifests, orders, pickups, search};

impl Shipping {
    /// Search shipments (4.3), `POST .../searchShipments`: the customer's shipments whose
    /// names, companies, phones, e-mails (sender and receiver), tracking numbers, order
    /// id, book number, order number or references contain `keyword` (any case), newest
    /// first, at most 100; voided ones included with `voided` true.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for an empty or blank
    /// keyword, or one longer than 200 characters.
    pub fn search_shipments(&self, customer_id: &str, req: &wire::SearchShipmentsRequest) -> Result<wire::ShipmentsResponse> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            search::search(conn, customer_id, &req.keyword)
        })
    }

    /// Track shipment (4.6), `GET .../shipments/:bookNumber/tracking-information`: every
    /// event of every piece, newest first.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment (or another customer's).
    pub fn tracking_information(&self, customer_id: &str, book_number: &str) -> Result<Vec<wire::TrackingEvent>> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            booking::find(conn, customer_id, book_number)?;
            tracking::events(conn, book_number)
        })
    }

    /// Record tracking events (carrier feed, DECISIONS 9), `POST
    /// .../shipments/:bookNumber/tracking-events`: events in the shape of 4.6, all or
    /// none. Events already stored are counted as duplicates and ignored.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment, or an event whose tracking number
    /// is not one of the shipment's (`events[i].trackingNumber`); `INVALID_REQUEST` for an
    /// empty list, a status outside 2.9, a time not `YYYY-MM-DD HH:MM:SS`, a country that
    /// is not ISO, or a carrier other than the shipment's; `LIMIT_EXCEEDED` past 1000
    /// events.
    pub fn record_tracking_events(
        &self,
        customer_id: &str,
        book_number: &str,
        req: &wire::RecordTrackingEventsRequest,
    ) -> Result<wire::RecordTrackingEventsResponse> {
        let catalog = self.catalog();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            let s = booking::find(tx, customer_id, book_number)?;
            if req.events.is_empty() {
                return Err(Error::invalid("events", "must hold at least one event"));
            }
            if req.events.len() > MAX_FEED_EVENTS {
                return Err(Error::fields(
                    ErrorCategory::LimitExceeded,
                    vec![FieldError {
                        field: "events".into(),
                        message: format!("at most {MAX_FEED_EVENTS} events per request, found {}", req.events.len()),
                    }],
                ));
            }
            if !catalog.carrier(&s.carrier_code).is_some_and(|c| c.trackable) {
                return Err(Error::invalid("events", format!("shipments of carrier {} cannot be tracked", s.carrier_code)));
            }
            let accepted = tracking::accepted_carriers(&s.carrier_code);
            let mut p = Problems::new();
            let mut unknown = Vec::new();
            let mut checked = Vec::with_capacity(req.events.len());
            for (i, e) in req.events.iter().enumerate() {
                let at = format!("events[{i}]");
                let e = tracking::check_event(&mut p, &at, e);
                if !s.view.tracking_numbers.contains(&e.tracking_number) {
                    unknown.push(FieldError {
                        field: format!("{at}.trackingNumber"),
                        message: format!("{:?} is not a tracking number of shipment {book_number}", e.tracking_number),
                    });
                }
                if !accepted.contains(&e.carrier.as_str()) {
                    p.push(
                        format!("{at}.carrier"),
                        format!("expected {} (the shipment's carrier), found {:?}", accepted.join(" or "), e.carrier),
                    );
                }
                checked.push(e);
            }
            if !unknown.is_empty() {
                return Err(Error::fields(ErrorCategory::NotFound, unknown));
            }
            p.finish()?;
            let (recorded, duplicates) = tracking::store(tx, book_number, &checked)?;
            Ok(wire::RecordTrackingEventsResponse { recorded, duplicates })
        })
    }

    /// Records one event a carrier reports for its tracking number (the Rust side of a
    /// carrier feed, keyed as carriers key their data). An event already stored is a
    /// duplicate: `recorded` 0, `duplicates` 1.
    ///
    /// # Errors
    /// `NOT_FOUND` when no shipment of `carrier` has `tracking_number` (e-commerce
    /// shipments are also found under `postal`, their final-mile carrier);
    /// `INVALID_REQUEST` for a carrier that cannot be tracked or an invalid event.
    pub fn record_tracking_event(
        &self,
        carrier: &str,
        tracking_number: &str,
        event: &wire::CarrierEvent,
    ) -> Result<wire::RecordTrackingEventsResponse> {
        let catalog = self.catalog();
        if !catalog.carrier(carrier).is_some_and(|c| c.trackable) {
            return Err(Error::invalid("carrier", format!("expected a carrier whose shipments can be tracked, found {carrier:?}")));
        }
        self.write(|tx| {
            let book_number: Option<String> = tx
                .prepare_cached(
                    "SELECT p.book_number, s.carrier_code FROM shipment_pieces p JOIN shipments s ON s.book_number = p.book_number
                     WHERE p.tracking_number = ?1",
                )?
                .query_map([tracking_number], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?
                .into_iter()
                .find(|(_, c)| tracking::accepted_carriers(c).contains(&carrier))
                .map(|(b, _)| b);
            let book_number = book_number.ok_or_else(|| {
                Error::new(ErrorCategory::NotFound, format!("No {carrier} shipment has tracking number {tracking_number:?}."))
            })?;
            let full = wire::TrackingEvent {
                tracking_number: tracking_number.to_string(),
                carrier: carrier.to_string(),
                event: event.event.clone(),
                event_status: event.event_status.clone(),
                event_time: event.event_time.clone(),
                service_area: event.service_area.clone(),
                service_area_country: event.service_area_country.clone(),
            };
            let mut p = Problems::new();
            let checked = tracking::check_event(&mut p, "", &full);
            p.finish()?;
            let (recorded, duplicates) = tracking::store(tx, &book_number, &[checked])?;
            Ok(wire::RecordTrackingEventsResponse { recorded, duplicates })
        })
    }

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
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            pickups::schedule(tx, &catalog, customer_id, req, today, now)
        })
    }

    /// Get pickup, `GET .../pickups/:pickupId`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or pickup (or another customer's).
    pub fn pickup(&self, customer_id: &str, pickup_id: &str) -> Result<wire::Pickup> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            pickups::get(conn, customer_id, pickup_id)
        })
    }

    /// Cancel pickup (DECISIONS 9), `POST .../pickups/:pickupId` `{"cancelled": true}`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or pickup (or another customer's);
    /// `INVALID_REQUEST` for `cancelled` false; `CONFLICT` when already cancelled.
    pub fn cancel_pickup(&self, customer_id: &str, pickup_id: &str, req: &wire::CancelPickupRequest) -> Result<wire::Pickup> {
        let now = self.clock().now();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            pickups::cancel(tx, customer_id, pickup_id, req, now)
        })
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
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            manifests::create(tx, &catalog, customer_id, req, today, now)
        })
    }

    /// Get manifest, `GET .../manifest/:manifestId`: the same document as created.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or manifest (or another customer's).
    pub fn manifest(&self, customer_id: &str, manifest_id: &str) -> Result<wire::ManifestResponse> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            manifests::get(conn, customer_id, manifest_id)
        })
    }

    /// Put order (4.2), `PUT .../integrations/:integrationId/orders/:orderId`: creates
    /// or replaces the order.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or integration (or another customer's);
    /// `INVALID_REQUEST` naming each field at fault.
    pub fn put_order(&self, customer_id: &str, integration_id: &str, order_id: &str, req: &wire::Order) -> Result<wire::OkResponse> {
        let now = self.clock().now();
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            orders::put(tx, customer_id, integration_id, order_id, req, now)
        })
    }

    /// Get order (DECISIONS 9): the order as put, with its current `fulfillmentStatus`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, integration or order (or another customer's).
    pub fn order(&self, customer_id: &str, integration_id: &str, order_id: &str) -> Result<wire::Order> {
        self.read(|conn| {
            customers::find(conn, customer_id)?;
            orders::get(conn, customer_id, integration_id, order_id)
        })
    }

    /// Delete order (DECISIONS 9).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, integration or order (or another customer's).
    pub fn delete_order(&self, customer_id: &str, integration_id: &str, order_id: &str) -> Result<wire::OkResponse> {
        self.write(|tx| {
            customers::find(tx, customer_id)?;
            orders::delete(tx, customer_id, integration_id, order_id)
        })
    }

    /// For benchmarks only: copies booked shipment `template` of `customer_id` `count`
    /// times with the SQL booking uses (shipment row, pieces, index), letting `vary`
    /// change each copy's view (its book number and tracking numbers are set first, from
    /// the booking sequences). One transaction per call.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown template; storage failures.
    #[doc(hidden)]
    pub fn bulk_insert_shipments_for_bench(
        &self,
        customer_id: &str,
        template: &str,
        count: u32,
        mut vary: impl FnMut(u32, &mut wire::ShipmentView),
    ) -> Result<()> {
        self.write(|tx| {
            // Bigger in-memory term lists while loading: fewer, larger segments to merge.
            for table in ["shipment_search", "shipment_grams"] {
                tx.execute(&format!("INSERT INTO {table} ({table}, rank) VALUES ('hashsize', 67108864)"), [])?;
            }
            let base = booking::find(tx, customer_id, template)?;
            type Row = (String, String, String, String, String, String, String, String, String, String, i64, String);
            let row: Row = tx.query_row(
                "SELECT carrier_code, service_code, package_type_code, family, shipment_date, shipment_date, zone, currency,
                        total_amount, label_format, charged_cents, created_at
                 FROM shipments WHERE book_number = ?1",
                [template],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                        r.get(9)?,
                        r.get(10)?,
                        r.get(11)?,
                    ))
                },
            )?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family, tracking_number,
                    shipment_date, zone, currency, total_amount, charged_cents, label_format, quote_id, view, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, NULL, ?14, ?15)",
            )?;
            let mut piece = tx.prepare_cached(
                "INSERT INTO shipment_pieces (book_number, piece_index, tracking_number, shipping_cost) VALUES (?1, ?2, ?3, ?4)",
            )?;
            let kind = crate::tracking_number::kind_for(&row.0, row.3 == "ground")
                .ok_or_else(|| Error::internal("the template's carrier has no tracking numbers"))?;
            for i in 0..count {
                let seq = crate::store::next_id(tx, "book_number")?;
                let mut view = base.view.clone();
                view.book_number = format!("{}", 1_000_000_000 + seq);
                let tn =
                    crate::tracking_number::generate(kind, crate::store::next_id(tx, &format!("tracking_{}", row.0))? as u64, customer_id);
                view.tracking_number = tn.clone();
                view.tracking_numbers = vec![tn.clone()];
                vary(i, &mut view);
                insert.execute(rusqlite::params![
                    view.book_number,
                    customer_id,
                    row.0,
                    row.1,
                    row.2,
                    row.3,
                    view.tracking_number,
                    row.5,
                    row.6,
                    row.7,
                    row.8,
                    row.10,
                    row.9,
                    wire::to_json(&view)?,
                    row.11,
                ])?;
                piece.execute(rusqlite::params![view.book_number, 0, view.tracking_number, row.8])?;
                search::index_now(tx, customer_id, seq, &view)?;
            }
            // The copies are indexed already: a search must not scan them as waiting.
            search::flush(tx)?;
            for table in ["shipment_search", "shipment_grams"] {
                tx.execute(&format!("INSERT INTO {table} ({table}, rank) VALUES ('hashsize', 1048576)"), [])?;
            }
            Ok(())
        })
    }
}
