//! The facade's operations on booked shipments: book (4.5), void, retrieve, list,
//! labels, search (4.3) and tracking (4.6) with its carrier feed.

use super::ids::{BookNumber, CustomerId};
use super::Shipping;
use crate::error::{Error, Result};
use crate::store::Read;
use crate::{booking, labels, search, shipments, tracking, wire, LabelLayout};

/// Most shipments one page of list shipments shows (DECISIONS 9).
const MAX_LISTED: i64 = 100;

impl Shipping {
    /// Book shipment (4.5), `POST .../shipments`: one transaction for the shipment, its
    /// ledger entries, its first tracking event and its idempotency record.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or quote; `INVALID_REQUEST` naming each field
    /// at fault; `SERVICE_NOT_AVAILABLE` off the service's route; `QUOTE_EXPIRED`;
    /// `INSUFFICIENT_FUNDS` (nothing is written then); `CONFLICT` for an idempotency key
    /// reused with another payload.
    pub fn book_shipment(&self, customer_id: &str, req: &wire::BookShipmentRequest) -> Result<wire::BookShipmentResponse> {
        self.write_booking(customer_id, |tx, ctx| booking::book(tx, ctx, req))
    }

    /// Void shipment, `POST .../shipments/:bookNumber` `{"voided": true}`: refunds its
    /// prepay charge to the ledger, and its return label's if that was charged.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment (or another customer's);
    /// `CONFLICT` when it is already voided, or the carrier has it in hand (it is on a
    /// manifest, or the carrier feed reported an event after `Info Received` for it or
    /// its scan-based return label).
    pub fn void_shipment(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
        req: &wire::VoidRequest,
    ) -> Result<wire::VoidResponse> {
        let now = self.clock.now();
        self.write_for(customer_id, |tx| booking::void(tx, customer_id, book_number, req, now))
    }

    /// Retrieve shipment, `GET .../shipments/:bookNumber` (fields as a search result).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment (or another customer's).
    pub fn shipment(&self, CustomerId(customer_id): CustomerId<'_>, BookNumber(book_number): BookNumber<'_>) -> Result<wire::ShipmentView> {
        self.read_for(customer_id, |conn| Ok(shipments::find(conn, customer_id, book_number)?.view))
    }

    /// List shipments, `GET .../shipments?minBookNumber=&limit=`: by book number from
    /// `min_book_number` (inclusive, compared as a number: `1` or `0001` lists from the
    /// first; empty too), at most `limit`, and at most 100 whatever `limit` asks (clients
    /// ask for more and page on).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for a limit below 1 or a
    /// `minBookNumber` that is not digits.
    pub fn shipments(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(min_book_number): BookNumber<'_>,
        limit: i64,
    ) -> Result<wire::ShipmentsResponse> {
        if limit < 1 {
            return Err(Error::invalid("limit", format!("expected a whole number from 1 to 100, found {limit}")));
        }
        let min = shipments::list_bound(min_book_number)?;
        self.read_for(customer_id, |conn| match &min {
            Some(min) => shipments::list(conn, customer_id, min, limit.min(MAX_LISTED)),
            None => Ok(wire::ShipmentsResponse { shipments: Vec::new() }),
        })
    }

    /// Retrieve label, `GET .../shipments/:bookNumber/label/:labelImageFormat`: the
    /// format (`PDF`, `ZPL`, `EPL2`) in any case.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment; `INVALID_REQUEST` for a format
    /// the carrier does not print; `CONFLICT` for a voided shipment.
    pub fn label(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
        format: &str,
    ) -> Result<wire::LabelResponse> {
        self.label_on(CustomerId(customer_id), BookNumber(book_number), Some(format), LabelLayout::Label)
    }

    /// Retrieve label on `layout`'s paper: 4x6 pages as [`Shipping::label`], or (letter,
    /// a4) one PDF of office sheets with two labels each and cut marks. `format` `None`
    /// is the format chosen at booking.
    ///
    /// # Errors
    /// As [`Shipping::label`]; `INVALID_REQUEST` on `layout` for sheets in ZPL or EPL2.
    pub fn label_on(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
        format: Option<&str>,
        layout: LabelLayout,
    ) -> Result<wire::LabelResponse> {
        self.read_with_books(customer_id, |conn, books| labels::label(conn, books, customer_id, book_number, format, layout, false))
            .map(labels::LabelImages::into_response)
    }

    /// The label of [`Shipping::label_on`] as bytes, PDF labels of several pieces merged
    /// into one PDF of a page per piece: what a front end sends as one document.
    pub(crate) fn label_document(
        &self,
        customer_id: &str,
        book_number: &str,
        format: Option<&str>,
        layout: LabelLayout,
    ) -> Result<labels::LabelImages> {
        self.read_with_books(customer_id, |conn, books| labels::label(conn, books, customer_id, book_number, format, layout, true))
    }

    /// Retrieve the labels of several shipments,
    /// `POST .../shipments/multiple/labels/:labelImageFormat` with `{"bookNumbers": [...]}`
    /// (at most 500, the customer's own, not voided): in PDF one document with a page
    /// per label in the order given (or two labels per office sheet, as `layout` says),
    /// in ZPL or EPL2 one entry per label.
    ///
    /// # Errors
    /// `LIMIT_EXCEEDED` past 500, or on `bookNumbers` past
    /// [`MAX_LABEL_PAGES`](crate::limits::MAX_LABEL_PAGES) pages (before any is rendered);
    /// `INVALID_REQUEST` for none, a book number given twice (naming the later
    /// `bookNumbers[i]`), an unknown format or one a shipment's carrier does not print,
    /// or sheets in ZPL or EPL2; `NOT_FOUND` for an
    /// unknown customer, or a shipment that is unknown or another customer's; `CONFLICT`
    /// for a voided one.
    pub fn labels(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        format: &str,
        layout: LabelLayout,
        req: &wire::LabelsRequest,
    ) -> Result<wire::LabelResponse> {
        self.labels_document(customer_id, format, layout, req).map(labels::LabelImages::into_response)
    }

    /// The labels of [`Shipping::labels`] as bytes.
    pub(crate) fn labels_document(
        &self,
        customer_id: &str,
        format: &str,
        layout: LabelLayout,
        req: &wire::LabelsRequest,
    ) -> Result<labels::LabelImages> {
        self.read_with_books(customer_id, |conn, books| labels::labels_of(conn, books, customer_id, &req.book_numbers, format, layout))
    }

    /// Retrieve commercial invoice, `GET .../shipments/:bookNumber/commercialInvoice`:
    /// `{"type": "application/pdf", "data": "<base64>"}`, the invoice of a booking that
    /// carried `commercialInvoice`. One Letter page (A4 when the sender is outside the US
    /// and Canada), more when the items need them.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment, another customer's, or one booked
    /// without an invoice; `CONFLICT` for a voided shipment.
    pub fn commercial_invoice(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
    ) -> Result<wire::InvoiceResponse> {
        self.read_for(customer_id, |conn| crate::invoices::document(conn, customer_id, book_number))
    }

    /// The PDF of [`Shipping::commercial_invoice`] as bytes.
    pub(crate) fn commercial_invoice_pdf(&self, customer_id: &str, book_number: &str) -> Result<Vec<u8>> {
        self.read_for(customer_id, |conn| crate::invoices::pdf(conn, customer_id, book_number))
    }

    /// Retrieve return label, `GET .../shipments/:bookNumber/return-label/:labelImageFormat`:
    /// the scan-based return label of a carrier B booking (`scanBasedReturnLabel`), from
    /// the receiver back to `returnTo` (the sender when absent), in the shape of the label
    /// answer, on `layout`'s paper. `format` `None` is the format chosen at booking.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment, or one booked without a return
    /// label; `CONFLICT` for a voided shipment; `INVALID_REQUEST` for a format the carrier
    /// does not print, or sheets in ZPL or EPL2.
    pub fn return_label(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
        format: Option<&str>,
        layout: LabelLayout,
    ) -> Result<wire::LabelResponse> {
        self.read_with_books(customer_id, |conn, books| crate::returns::label(conn, books, customer_id, book_number, format, layout))
    }

    /// Retrieve label in the format chosen at booking, `GET .../shipments/:bookNumber/label`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment; `CONFLICT` for a voided shipment.
    pub fn booked_label(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
    ) -> Result<wire::LabelResponse> {
        self.label_on(CustomerId(customer_id), BookNumber(book_number), None, LabelLayout::Label)
    }

    /// Search shipments (4.3), `POST .../searchShipments`: the customer's shipments whose
    /// names, companies, phones, e-mails (sender and receiver), tracking numbers, order
    /// id, book number, order number or references contain `keyword` (any case), newest
    /// first, at most 100; voided ones included with `voided` true.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `INVALID_REQUEST` for an empty or blank
    /// keyword, or one longer than 200 characters.
    pub fn search_shipments(&self, customer_id: &str, req: &wire::SearchShipmentsRequest) -> Result<wire::ShipmentsResponse> {
        self.read_for(customer_id, |conn| search::search(conn, customer_id, &req.keyword))
    }

    /// [`Shipping::search_shipments`] as the JSON of its answer, for `handle`.
    pub(crate) fn search_shipments_json(&self, customer_id: &str, req: &wire::SearchShipmentsRequest) -> Result<String> {
        self.read_for(customer_id, |conn| search::search_json(conn, customer_id, &req.keyword))
    }

    /// Track shipment (4.6), `GET .../shipments/:bookNumber/tracking-information`: every
    /// event of every piece, newest first.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment (or another customer's).
    pub fn tracking_information(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
    ) -> Result<Vec<wire::TrackingEvent>> {
        self.read_for(customer_id, |conn| {
            shipments::find(conn, customer_id, book_number)?;
            tracking::events(conn, customer_id, book_number)
        })
    }

    /// Record tracking events (carrier feed, DECISIONS 9), `POST
    /// .../shipments/:bookNumber/tracking-events`: events in the shape of 4.6, all or
    /// none, for the shipment's pieces or its scan-based return label. Events already
    /// stored are counted as duplicates and ignored. The first event of the return label
    /// charges the return to the prepay balance, as a debt when it cannot pay it.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer or shipment, or an event whose tracking number
    /// is not one of the shipment's (`events[i].trackingNumber`); `INVALID_REQUEST` for an
    /// empty list, a status outside 2.9, a time not `YYYY-MM-DD HH:MM:SS`, a country that
    /// is not ISO, or a carrier other than the shipment's; `LIMIT_EXCEEDED` past 1000
    /// events; `CONFLICT` for the return label of a voided shipment. Never refused for
    /// money.
    pub fn record_tracking_events(
        &self,
        CustomerId(customer_id): CustomerId<'_>,
        BookNumber(book_number): BookNumber<'_>,
        req: &wire::RecordTrackingEventsRequest,
    ) -> Result<wire::RecordTrackingEventsResponse> {
        let (catalog, now) = (self.catalog(), self.clock.now());
        self.write_for(customer_id, |tx| {
            let shipment = shipments::find(tx, customer_id, book_number)?;
            tracking::record(tx, &catalog, customer_id, &shipment, &req.events, now)
        })
    }

    /// Records one event a carrier reports for its tracking number (the Rust side of a
    /// carrier feed, keyed as carriers key their data). An event already stored is a
    /// duplicate: `recorded` 0, `duplicates` 1.
    ///
    /// # Errors
    /// `NOT_FOUND` when no shipment of `carrier` has `tracking_number` (e-commerce
    /// shipments are also found under `postal`, their final-mile carrier, and return
    /// labels by their own number); `INVALID_REQUEST` for a carrier that cannot be
    /// tracked or an invalid event; `CONFLICT` for the return label of a voided
    /// shipment. Never refused for money.
    pub fn record_tracking_event(
        &self,
        carrier: &str,
        tracking_number: &str,
        event: &wire::CarrierEvent,
    ) -> Result<wire::RecordTrackingEventsResponse> {
        let (catalog, now) = (self.catalog(), self.clock.now());
        self.write(|tx| tracking::record_for_carrier(tx, &catalog, carrier, tracking_number, event, now))
    }

    /// [`Shipping::read_for`] with the catalog and rate book labels are drawn with.
    fn read_with_books<T>(&self, customer_id: &str, f: impl FnOnce(&Read<'_>, &labels::Books) -> Result<T>) -> Result<T> {
        let (catalog, rates) = (self.catalog(), self.rate_book());
        let books = labels::Books { catalog: &catalog, rates: &rates };
        self.read_for(customer_id, |conn| f(conn, &books))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// Books `n` domestic shipments with references `REF-0`, ... for a new customer.
    fn booked(n: usize) -> (Shipping, String, Vec<String>) {
        let shipping = Shipping::open_in_memory().unwrap();
        let address = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
            "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"});
        let body = json!({"profileCode": "Default", "email": "ann@example.com", "password": "glaze-and-fire",
            "mailingAddress": address, "billingAddress": address, "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 10000}});
        let r = shipping.handle("POST", "/restapi/v1/customers", &body.to_string());
        let id = serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string();
        let date = shipping.clock().today() + chrono::Duration::days(1);
        let books = (0..n)
            .map(|i| {
                let shipment = json!({"carrierCode": "postal", "serviceCode": "postal_priority_mail", "packageTypeCode": "postal_custom",
                    "shipmentDate": date.to_string(), "shipmentReference": format!("REF-{i}"), "contentDescription": "mugs \"glazed\" \\ fired",
                    "sender": address, "receiver": {"name": "Bo Kim", "company": "", "address1": "1 A St", "address2": "", "city": "Los Angeles",
                        "state": "CA", "zip": "90012", "country": "US", "phone": "2135550100"},
                    "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
                    "pieces": [{"weight": "2.5", "length": "10", "width": "8", "height": "6", "insuranceAmount": "120.50", "declaredValue": null}]});
                let r = shipping.handle("POST", &format!("/restapi/v1/customers/{id}/shipments"), &shipment.to_string());
                assert_eq!(r.status, 201, "{}", r.body);
                serde_json::from_str::<Value>(&r.body).unwrap()["bookNumber"].as_str().unwrap().to_string()
            })
            .collect();
        (shipping, id, books)
    }

    /// The search answer through `handle` and the typed answer written by serde.
    fn both(shipping: &Shipping, id: &str, keyword: &str) -> (String, String) {
        let r = shipping.handle("POST", &format!("/restapi/v1/customers/{id}/searchShipments"), &json!({ "keyword": keyword }).to_string());
        assert_eq!(r.status, 200, "{}", r.body);
        let typed = shipping.search_shipments(id, &wire::SearchShipmentsRequest { keyword: keyword.into() }).unwrap();
        (r.body, wire::to_json(&typed).unwrap())
    }

    #[test]
    fn search_sends_views_of_todays_shape_as_stored_and_exactly_as_serde_writes_them() {
        let (shipping, id, books) = booked(4);
        let shapes: Vec<Option<i64>> =
            shipping.read(|c| c.rows("SELECT view_shape FROM shipments", crate::store::args![], |r| r.get(0))).unwrap();
        assert_eq!(shapes, vec![Some(shipments::view_shape()); 4], "bookings record today's shape");
        let r = shipping.handle("POST", &format!("/restapi/v1/customers/{id}/shipments/{}", books[1]), r#"{"voided": true}"#);
        assert_eq!(r.status, 200, "{}", r.body);
        let (sent, typed) = both(&shipping, &id, "ref-");
        assert_eq!(sent, typed);
        let voided: Vec<bool> =
            serde_json::from_str::<Value>(&sent).unwrap()["shipments"].as_array().unwrap().iter().map(|v| v["voided"] == true).collect();
        assert_eq!(voided, [false, false, true, false], "newest first, the voided one shows it");
        let (none, typed_none) = both(&shipping, &id, "no such thing");
        assert_eq!((none.as_str(), typed_none.as_str()), (r#"{"shipments":[]}"#, r#"{"shipments":[]}"#));
    }

    #[test]
    fn views_of_another_shape_are_read_and_written_again() {
        let (shipping, id, books) = booked(3);
        // As an older build stored them: no orderId (read as the fulfilled order's id),
        // no shape recorded; and one whose shape differs from today's.
        shipping
            .write(|tx| {
                let view: String =
                    tx.one("SELECT view FROM shipments WHERE book_number = ?1", crate::store::args![books[0]], |r| r.get(0))?;
                let mut old: serde_json::Map<String, Value> = serde_json::from_str(&view).unwrap();
                old.remove("orderId");
                old.insert("fulfillment".into(), json!({"orderId": "ORD-7", "integrationId": "shop", "items": []}));
                tx.execute(
                    "UPDATE shipments SET view = ?1, view_shape = NULL WHERE book_number = ?2",
                    crate::store::args![Value::Object(old).to_string(), books[0]],
                )?;
                tx.execute("UPDATE shipments SET view_shape = 1, voided = 1 WHERE book_number = ?1", crate::store::args![books[2]])?;
                Ok(())
            })
            .unwrap();
        let (sent, typed) = both(&shipping, &id, "ref-");
        assert_eq!(sent, typed);
        let answer: Value = serde_json::from_str(&sent).unwrap();
        assert_eq!(answer["shipments"][2]["orderId"], "ORD-7");
        assert_eq!(answer["shipments"][0]["voided"], true);
    }
}
