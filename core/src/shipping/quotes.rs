//! The facade's quoting operations: batch quote (4.1), the single-shipment quote
//! (DECISIONS 9), and stored quotes.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::Shipping;
use crate::error::{Error, ErrorCategory, Result};
use crate::quoting::{self, Context, Form, PricedAnswer, PricedQuotes};
use crate::{accounts, wire};

impl Shipping {
    /// Batch quote (4.1), `POST .../batch-quote`, for Rust callers with typed shipments.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `LIMIT_EXCEEDED` for more than 500
    /// shipments; `TOO_MANY_REQUESTS` past the customer's quoted shipments of the day
    /// ([`crate::ShippingBuilder::quoted_shipments_per_day`]). Everything about one
    /// shipment is in its result instead.
    pub fn batch_quote(&self, customer_id: &str, shipments: &[wire::QuoteShipment]) -> Result<wire::BatchQuoteResponse> {
        quoting::check_batch_size(shipments.len())?;
        let (rows, quotes, mut answer) =
            self.price_shipments(customer_id, Form::Batch, &mut shipments.iter().map(|s| Ok(Cow::Borrowed(s))), |outcomes| {
                Ok(quoting::answer(outcomes))
            })?;
        let first = self.store_quotes(customer_id, &rows, quotes)?;
        for q in answer.results.iter_mut().filter_map(|r| r.quotes.as_mut()).flatten() {
            q.quote_id += first;
        }
        Ok(answer)
    }

    /// Prices a batch quote from the request body as sent, without storing it (see
    /// [`PricedQuotes`]): each shipment is parsed on its own, so that one whose JSON does
    /// not fit the shipment shape fails alone.
    pub(crate) fn price_batch_json(&self, customer_id: &str, body: &str) -> Result<PricedQuotes> {
        let answer = |outcomes: Vec<quoting::Outcome<'_>>| quoting::answer_json_marked(&outcomes);
        // A body whose every shipment reads is read in one pass; only one with a shipment
        // that does not is split, to read each shipment on its own (reading the body twice
        // over was a sixth of a one-service batch).
        let (rows, quotes, (text, marks)) = if let Some(whole) = wire::parse_if_whole::<WholeBatchQuoteRequest>(body) {
            quoting::check_batch_size(whole.shipments.len())?;
            self.price_shipments(customer_id, Form::Batch, &mut whole.shipments.into_iter().map(|s| Ok(Cow::Owned(s))), answer)?
        } else {
            let req: BorrowedBatchQuoteRequest = wire::parse_borrowed(body)?;
            quoting::check_batch_size(req.shipments.len())?;
            let mut read = req.shipments.iter().map(|raw| wire::parse_body(raw.get()).map(Cow::Owned));
            self.price_shipments(customer_id, Form::Batch, &mut read, answer)?
        };
        Ok(PricedQuotes { customer_id: customer_id.to_string(), rows, quotes, answer: PricedAnswer::Batch { text, marks } })
    }

    /// Stores the quotes of `priced` (from [`Shipping::price_batch_json`] or
    /// [`Shipping::price_quote`]) in one transaction and answers with their ids.
    ///
    /// # Errors
    /// `TOO_MANY_REQUESTS` when the quotes of the day stored meanwhile leave no room for
    /// these; a storage failure, or `BUSY`.
    pub(crate) fn store_priced_quotes(&self, priced: PricedQuotes) -> Result<String> {
        let first = self.store_quotes(&priced.customer_id, &priced.rows, priced.quotes)?;
        priced.answer_body(first)
    }

    /// Reads the customer, checks the quoted shipments of the day against the cap (before
    /// any is read), prices every shipment of `requested` (as read), sent in `form`,
    /// without writing, and makes the answer of them with `answer`: the rows to store,
    /// how many quotes they hold, and the answer, whose quote ids count from 0.
    fn price_shipments<A>(
        &self,
        customer_id: &str,
        form: Form,
        requested: &mut dyn ExactSizeIterator<Item = quoting::Requested<'_>>,
        answer: impl FnOnce(Vec<quoting::Outcome<'_>>) -> Result<A>,
    ) -> Result<(Vec<quoting::Row>, usize, A)> {
        let now = self.clock.now();
        let (customer, catalog, provider_accounts) = self.read(|conn| {
            let (customer, catalog) = self.customer(conn, customer_id)?;
            let stored = quoting::stored_on(conn, customer_id, now.date_naive())?;
            quoting::check_daily_cap(stored, requested.len() as u64, self.quotes_per_day, now)?;
            Ok((customer, catalog, accounts::provider_account_ids(conn, customer_id)?))
        })?;
        let rates = self.rate_book();
        let cards = quoting::card_table(&catalog, &rates);
        let ctx = Context {
            form,
            catalog: &catalog,
            rates: &rates,
            profile: Self::profile(&catalog, &customer)?,
            today: self.clock.today(),
            provider_accounts: &provider_accounts,
            cards: &cards,
        };
        let mut outcomes = quoting::price_all(&ctx, requested);
        let quotes = quoting::number(&mut outcomes, 0);
        let rows = quoting::rows(&mut outcomes);
        Ok((rows, quotes, answer(outcomes)?))
    }

    /// Stores `rows` of the customer, holding `quotes` quotes, in one transaction: checks
    /// the quoted shipments of the day against the cap, reserves the quote ids and
    /// returns the first (0 when there is nothing to store).
    fn store_quotes(&self, customer_id: &str, rows: &[quoting::Row], quotes: usize) -> Result<i64> {
        if rows.is_empty() {
            return Ok(0);
        }
        let now = self.clock.now();
        let day = now.date_naive();
        self.write(|tx| {
            crate::store::lock_customer(tx, customer_id)?;
            let stored = quoting::stored_on(tx, customer_id, day)?;
            quoting::check_daily_cap(stored, rows.len() as u64, self.quotes_per_day, now)?;
            let first = crate::store::next_ids(tx, "quote", quotes)?;
            quoting::store(tx, customer_id, now, first, rows)?;
            quoting::count_stored(tx, customer_id, day, rows.len() as u64)?;
            Ok(first)
        })
    }

    /// Single-shipment quote (DECISIONS 9), `POST .../quote`: one quote when carrier,
    /// service and package type are all named, else the quotes and quote errors.
    ///
    /// The shipment may be the reduced body public clients send: addresses of a country
    /// and a postal code (a US state left out is the state of the ZIP's prefix), no
    /// `shipmentDate` (today), no `shipmentReference`, no `currency` (USD).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; the shipment's error (with field paths) when
    /// it cannot be quoted at all; when all three are named, the reason that one service
    /// could not be quoted; `TOO_MANY_REQUESTS` past the customer's quoted shipments of
    /// the day.
    pub fn quote(&self, customer_id: &str, shipment: &wire::QuoteShipment) -> Result<wire::QuoteAnswer> {
        let priced = self.price_quote(customer_id, shipment)?;
        let first = self.store_quotes(customer_id, &priced.rows, priced.quotes)?;
        match priced.answer {
            PricedAnswer::Single(mut answer) => {
                match &mut answer {
                    wire::QuoteAnswer::One(q) => q.quote_id += first,
                    wire::QuoteAnswer::Many(many) => many.quotes.iter_mut().for_each(|q| q.quote_id += first),
                }
                Ok(answer)
            }
            PricedAnswer::Batch { .. } => Err(Error::internal("a single quote was priced as a batch")),
        }
    }

    /// Prices a single quote (see [`Shipping::quote`]) without storing it.
    pub(crate) fn price_quote(&self, customer_id: &str, shipment: &wire::QuoteShipment) -> Result<PricedQuotes> {
        let all_named = shipment.carrier_code.is_some() && shipment.service_code.is_some() && shipment.package_type_code.is_some();
        let (rows, quotes, answer) =
            self.price_shipments(customer_id, Form::Single, &mut std::iter::once(Ok(Cow::Borrowed(shipment))), |outcomes| {
                let quoted = outcomes.into_iter().next().ok_or_else(|| Error::internal("a quote request produced no result"))??;
                let mut quotes: Vec<wire::Quote> = quoted.quotes.iter().map(quoting::PricedQuote::to_wire).collect();
                if !all_named {
                    return Ok(wire::QuoteAnswer::Many(wire::QuotesResponse { quotes, quote_errors: quoted.errors }));
                }
                if let Some(q) = quotes.pop() {
                    return Ok(wire::QuoteAnswer::One(Box::new(q)));
                }
                let e = quoted
                    .errors
                    .into_iter()
                    .next()
                    .ok_or_else(|| Error::new(ErrorCategory::ServiceNotAvailable, "The named service could not be quoted."))?;
                match crate::error::category_from_code(&e.error_category) {
                    // the date is the shipment's to change: name it
                    ErrorCategory::DeliveryDateNotMet => Err(Error::fields(
                        ErrorCategory::DeliveryDateNotMet,
                        vec![crate::error::FieldError { field: "deliverBy".into(), message: e.error }],
                    )),
                    category => Err(Error::new(category, e.error)),
                }
            })?;
        Ok(PricedQuotes { customer_id: customer_id.to_string(), rows, quotes, answer: PricedAnswer::Single(answer) })
    }

    /// A quote of the customer by id, with the shipment it was made for.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer, or a quote that is unknown or another
    /// customer's.
    pub fn stored_quote(&self, customer_id: &str, quote_id: i64) -> Result<quoting::StoredQuote> {
        self.read_for(customer_id, |conn| {
            quoting::find(conn, customer_id, quote_id)?.ok_or_else(|| Error::not_found("quote", &quote_id.to_string()))
        })
    }

    /// Removes the quotes, of every customer, that expired `days` days or more before
    /// the clock's now, in one write transaction, and returns how many it removed.
    /// Quotes are kept 30 days and never removed otherwise: a long-running application
    /// calls this now and then (once a day, say) to keep the file from growing. `0`
    /// removes every expired quote.
    ///
    /// A quote held by a batch stays (the batch shows it) until the batch is deleted;
    /// a booked quote goes, since its shipment keeps a copy of what it was booked at.
    /// Booking a removed quote by `quoteId` answers `NOT_FOUND` instead of
    /// `QUOTE_EXPIRED`.
    ///
    /// # Errors
    /// Only on a storage failure, or `BUSY`.
    pub fn purge_expired_quotes(&self, days: u32) -> Result<u64> {
        let cutoff = self.clock.now().timestamp() - i64::from(days) * 86_400;
        self.write(|tx| quoting::purge_expired(tx, cutoff))
    }

    /// The quotes that [`Shipping::purge_expired_quotes`] would remove, found without
    /// writing (other connections write meanwhile), to be removed a few at a time with
    /// [`Shipping::purge_some_expired_quotes`]: what `consign serve` does once a day.
    ///
    /// # Errors
    /// Only on a storage failure.
    pub fn expired_quotes(&self, days: u32) -> Result<quoting::ExpiredQuotes> {
        let cutoff = self.clock.now().timestamp() - i64::from(days) * 86_400;
        self.read(|conn| Ok(quoting::ExpiredQuotes { cutoff, rows: quoting::expired_rows(conn, cutoff)? }))
    }

    /// Removes the quotes of `expired` (a part of [`Shipping::expired_quotes`]'s, see
    /// [`quoting::ExpiredQuotes::take`]) in one short write transaction, as
    /// [`Shipping::purge_expired_quotes`] would (a quote a batch holds stays), and returns
    /// how many it removed.
    ///
    /// # Errors
    /// Only on a storage failure, or `BUSY`.
    pub fn purge_some_expired_quotes(&self, expired: &quoting::ExpiredQuotes) -> Result<u64> {
        if expired.is_empty() {
            return Ok(0);
        }
        self.write(|tx| quoting::purge_rows(tx, expired.cutoff, &expired.rows))
    }
}

/// Body of `POST .../batch-quote`, borrowing each shipment's JSON from the body (as
/// [`wire::BatchQuoteRequest`], without copying every shipment out of it).
/// Body of `POST .../batch-quote` when every shipment in it reads.
#[derive(serde::Deserialize)]
struct WholeBatchQuoteRequest {
    #[serde(deserialize_with = "wire::bounded::at_most::<_, _, { crate::limits::MAX_BATCH }>")]
    shipments: Vec<wire::QuoteShipment>,
}

#[derive(serde::Deserialize)]
struct BorrowedBatchQuoteRequest<'a> {
    #[serde(borrow, deserialize_with = "wire::bounded::at_most::<_, _, { crate::limits::MAX_BATCH }>")]
    shipments: Vec<&'a RawValue>,
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use std::sync::Arc;

    use super::*;
    use crate::FixedClock;

    fn service() -> (Shipping, String) {
        service_at(Arc::new(FixedClock::at("2026-11-21T15:00:00Z").unwrap()))
    }

    fn service_at(clock: Arc<FixedClock>) -> (Shipping, String) {
        service_of(Shipping::builder().clock(clock))
    }

    fn service_of(builder: crate::ShippingBuilder) -> (Shipping, String) {
        let shipping = builder.open().unwrap();
        let address = json!({"name": "Ann Lee", "company": "Lee Ceramics", "address1": "200 Market St", "address2": "",
            "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US", "phone": "(215) 555-0142"});
        let body = json!({"profileCode": "Retail", "email": "ann@example.com", "password": "glaze-and-fire",
            "mailingAddress": address, "billingAddress": address, "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}});
        let r = shipping.handle("POST", "/restapi/v1/customers", &body.to_string());
        assert_eq!(r.status, 201, "{}", r.body);
        let id: Value = serde_json::from_str(&r.body).unwrap();
        (shipping, id["customerId"].as_str().unwrap().to_string())
    }

    fn shipments() -> Vec<Value> {
        let sender =
            json!({"name": "Ann Lee", "address1": "200 Market St", "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US"});
        let domestic = json!({"shipmentDate": "2026-11-23", "shipmentReference": "A", "sender": sender,
            "receiver": {"city": "Los Angeles", "state": "CA", "zip": "90012", "country": "US"}, "residential": true,
            "weightUnit": "lb", "dimUnit": "in", "currency": "EUR",
            "pieces": [{"weight": "31.5", "length": "30", "width": "20", "height": "12", "insuranceAmount": "250"}]});
        let envelope = json!({"shipmentDate": "2026-11-23", "shipmentReference": "B", "sender": sender,
            "receiver": {"city": "New York", "state": "NY", "zip": "10001", "country": "US"},
            "weightUnit": "oz", "dimUnit": null, "currency": "USD", "pieces": [{"weight": "6"}]});
        let abroad = json!({"shipmentDate": "2026-11-23", "shipmentReference": "C", "sender": sender,
            "receiver": {"city": "London", "zip": "SW1A 1AA", "country": "GB"},
            "weightUnit": "kg", "dimUnit": "cm", "currency": "GBP",
            "pieces": [{"weight": "1.2", "length": "30", "width": "20", "height": "10", "declaredValue": "80"}]});
        let mut named = abroad.clone();
        named["serviceCode"] = json!("parcel_ground");
        let mut invalid = domestic.clone();
        invalid["receiver"]["state"] = json!("Texas");
        vec![domestic, envelope, abroad, named, invalid]
    }

    /// The JSON answer, written from the outcomes while they are stored, is byte for byte
    /// the typed answer serialised: quotes, quote errors and failed shipments alike.
    #[test]
    fn the_json_batch_answer_is_the_typed_answer_serialised() {
        let shipments = shipments();
        let (a, a_id) = service();
        let r = a.handle("POST", &format!("/restapi/v1/customers/{a_id}/batch-quote"), &json!({ "shipments": shipments }).to_string());
        assert_eq!(r.status, 200, "{}", r.body);

        let (b, b_id) = service();
        let typed: Vec<wire::QuoteShipment> = shipments[..4].iter().map(|s| serde_json::from_value(s.clone()).unwrap()).collect();
        let mut answer = b.batch_quote(&b_id, &typed).unwrap();
        let failed: Value = serde_json::from_str(&r.body).unwrap();
        answer.results.push(serde_json::from_value(failed["results"][4].clone()).unwrap());
        assert_eq!(r.body, wire::to_json(&answer).unwrap());

        let parsed: Value = serde_json::from_str(&r.body).unwrap();
        let results = parsed["results"].as_array().unwrap();
        assert!(results[0]["quotes"].as_array().unwrap().iter().any(|q| q["surcharges"].as_array().unwrap().len() > 1), "{}", r.body);
        assert!(!results[1]["quotes"].as_array().unwrap().is_empty(), "{}", r.body);
        assert!(results[3]["quotes"].as_array().unwrap().is_empty() && !results[3]["quoteErrors"].as_array().unwrap().is_empty());
        assert_eq!(results[4]["status"], "error");
    }

    /// The stored quotes are the quotes of the answer, found by id.
    #[test]
    fn a_stored_quote_is_the_quote_answered() {
        let (a, id) = service();
        let r = a.handle("POST", &format!("/restapi/v1/customers/{id}/batch-quote"), &json!({ "shipments": shipments() }).to_string());
        let parsed: Value = serde_json::from_str(&r.body).unwrap();
        for result in parsed["results"].as_array().unwrap() {
            for q in result["quotes"].as_array().into_iter().flatten() {
                let stored = a.stored_quote(&id, q["quoteId"].as_i64().unwrap()).unwrap();
                assert_eq!(serde_json::to_value(&stored.quote).unwrap(), *q);
            }
        }
    }

    /// A batch of `n` shipments (those of [`shipments`] in turn) and a shipment that does
    /// not parse (a number for a text) at index `n / 2`.
    fn long_body(n: usize) -> String {
        let mut texts: Vec<String> = shipments().iter().cycle().take(n).map(Value::to_string).collect();
        texts[n / 2] = texts[n / 2].replacen("\"weightUnit\":\"lb\"", "\"weightUnit\":5", 1);
        format!("{{\"shipments\": [{}]}}", texts.join(",\n"))
    }

    /// A long request is answered, numbered and stored exactly as the same shipments
    /// requested one by one: in order, failed shipments included, each failure alone.
    #[test]
    fn a_long_batch_is_answered_and_stored_as_its_shipments_one_by_one() {
        let body = long_body(300);
        let (a, a_id) = service();
        let apart = a.handle("POST", &format!("/restapi/v1/customers/{a_id}/batch-quote"), &body);
        assert_eq!(apart.status, 200, "{}", apart.body);
        // the same shipments as requests of one, below the threshold of threads
        let (b, b_id) = service();
        let request: Value = serde_json::from_str(&body).unwrap();
        let mut in_turn = Vec::new();
        for (i, s) in request["shipments"].as_array().unwrap().iter().enumerate() {
            let r = b.handle("POST", &format!("/restapi/v1/customers/{b_id}/batch-quote"), &json!({ "shipments": [s] }).to_string());
            let mut result: Value = serde_json::from_str::<Value>(&r.body).unwrap()["results"][0].clone();
            result["shipmentIndex"] = json!(i);
            if let Some(details) = result.get_mut("details").and_then(Value::as_array_mut) {
                for d in details {
                    d["field"] = json!(d["field"].as_str().unwrap().replacen("shipments[0]", &format!("shipments[{i}]"), 1));
                }
                result["error"] = json!(result["error"].as_str().unwrap().replace("shipments[0]", &format!("shipments[{i}]")));
            }
            in_turn.push(result);
        }
        assert_eq!(serde_json::from_str::<Value>(&apart.body).unwrap(), json!({ "results": in_turn }));
        let results = &serde_json::from_str::<Value>(&apart.body).unwrap()["results"];
        assert_eq!((results[4]["status"].as_str(), results[150]["status"].as_str()), (Some("error"), Some("error")));
        let stored = |s: &Shipping| -> Vec<(i64, String)> {
            s.read(|conn| {
                conn.rows("SELECT first_quote_id, shipment FROM quoted_shipments ORDER BY first_quote_id", crate::store::args![], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
            })
            .unwrap()
        };
        assert_eq!(stored(&a), stored(&b));
        // (a fifth fail validation, a fifth name a service that has no quotes for them)
        assert_eq!(stored(&a).len(), 300 - 2 * (300 / 5) - 1);
    }

    /// The ids of the quotes of one request of `shipments()`, shipped the day after the
    /// clock's today (each shipment's first quote).
    fn quote_ids(s: &Shipping, id: &str) -> Vec<i64> {
        let date = (s.clock().today() + chrono::Duration::days(1)).to_string();
        let mut shipments = shipments();
        shipments.iter_mut().for_each(|s| s["shipmentDate"] = json!(date));
        let r = s.handle("POST", &format!("/restapi/v1/customers/{id}/batch-quote"), &json!({ "shipments": shipments }).to_string());
        let parsed: Value = serde_json::from_str(&r.body).unwrap();
        let quotes = parsed["results"].as_array().unwrap().iter().filter_map(|r| r["quotes"].as_array()).filter(|q| !q.is_empty());
        quotes.map(|q| q[0]["quoteId"].as_i64().unwrap()).collect()
    }

    #[test]
    fn purging_removes_quotes_expired_long_enough_and_keeps_those_of_batches() {
        let clock = Arc::new(FixedClock::at("2026-11-21T15:00:00Z").unwrap());
        let (s, id) = service_at(clock.clone());
        let rows = |s: &Shipping| {
            s.read(|c| {
                c.one("SELECT count(*), sum(quote_count) FROM quoted_shipments", crate::store::args![], |r| {
                    Ok((r.get::<i64>(0)?, r.get::<Option<i64>>(1)?))
                })
            })
            .unwrap()
        };

        let old = quote_ids(&s, &id);
        // one old quote goes into a batch before it expires
        let r = s.handle("POST", &format!("/restapi/v1/customers/{id}/batch"), "");
        let batch = serde_json::from_str::<Value>(&r.body).unwrap()["batchId"].as_str().unwrap().to_string();
        let r = s.handle("POST", &format!("/restapi/v1/customers/{id}/batch/{batch}/quotes"), &json!({"quoteIds": [old[1]]}).to_string());
        assert_eq!(r.status, 200, "{}", r.body);
        let old_quotes = rows(&s).1.unwrap();
        clock.advance(chrono::Duration::days(10));
        let younger = quote_ids(&s, &id);
        let (all_rows, all_quotes) = rows(&s);
        let batched_quotes = s
            .read(|c| {
                c.one("SELECT quote_count FROM quoted_shipments WHERE first_quote_id = ?1", crate::store::args![old[1]], |r| {
                    r.get::<i64>(0)
                })
            })
            .unwrap();

        // The old quotes expired 5 days ago (30 days after they were made), the younger
        // ones have 25 days to go: nothing has been expired for 7 days.
        clock.advance(chrono::Duration::days(25));
        assert_eq!(s.purge_expired_quotes(7).unwrap(), 0);
        assert_eq!(rows(&s), (all_rows, all_quotes));

        // Expired for 5 days: the old ones go, but the row of the batched one stays.
        let removed = s.purge_expired_quotes(5).unwrap();
        let (left_rows, left_quotes) = rows(&s);
        assert_eq!(left_rows, younger.len() as i64 + 1);
        assert_eq!(removed as i64, old_quotes - batched_quotes);
        assert_eq!(left_quotes.unwrap(), all_quotes.unwrap() - removed as i64);
        assert_eq!(s.stored_quote(&id, old[0]).unwrap_err().category(), ErrorCategory::NotFound);
        for q in younger.iter().chain([&old[1]]) {
            s.stored_quote(&id, *q).unwrap();
        }
        let r = s.handle("GET", &format!("/restapi/v1/customers/{id}/batch/{batch}"), "");
        assert_eq!(r.status, 200, "the batch still shows its quote: {}", r.body);

        // Once the batch is deleted, its quote goes too.
        let r = s.handle("DELETE", &format!("/restapi/v1/customers/{id}/batch/{batch}"), "");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(s.purge_expired_quotes(5).unwrap(), batched_quotes as u64);
        assert_eq!(s.purge_expired_quotes(0).unwrap(), 0, "the younger ones have not expired");
        clock.advance(chrono::Duration::days(5));
        assert_eq!(s.purge_expired_quotes(0).unwrap() as i64, left_quotes.unwrap() - batched_quotes);
        assert_eq!(rows(&s), (0, None));
    }

    /// The shipment column of the customer's rows, in the order they were stored.
    fn stored_shipments(s: &Shipping) -> Vec<String> {
        s.read(|c| c.rows("SELECT shipment FROM quoted_shipments ORDER BY first_quote_id", crate::store::args![], |r| r.get(0))).unwrap()
    }

    /// A quoted shipment is stored as it was read (serde's JSON of the typed shipment):
    /// fields the interface does not know, at any depth, are not kept, and booking by
    /// the quote's id still works.
    #[test]
    fn a_quoted_shipment_is_stored_without_the_fields_it_does_not_know() {
        let (s, id) = service();
        let address = |name: &str, city: &str, state: &str, zip: &str| {
            json!({"name": name, "company": "", "address1": "1 A St", "address2": "", "city": city, "state": state, "zip": zip,
                "country": "US", "phone": "2155550142"})
        };
        let mut shipment = json!({"shipmentDate": "2026-11-23", "shipmentReference": "A",
            "sender": address("Ann Lee", "Philadelphia", "PA", "19106"), "receiver": address("Bo Kim", "Los Angeles", "CA", "90012"),
            "serviceCode": "parcel_ground", "packageTypeCode": "parcel_custom", "weightUnit": "lb", "dimUnit": "in", "currency": "USD",
            "pieces": [{"weight": "2", "length": "10", "width": "8", "height": "6", "insuranceAmount": null, "declaredValue": null}]});
        shipment["internalNote"] = json!("kept-nowhere-1");
        shipment["sender"]["favouriteColour"] = json!("kept-nowhere-2");
        shipment["pieces"][0]["shelf"] = json!({"aisle": "kept-nowhere-3"});
        let r = s.handle("POST", &format!("/restapi/v1/customers/{id}/batch-quote"), &json!({ "shipments": [shipment] }).to_string());
        assert_eq!(r.status, 200, "{}", r.body);
        let quote = serde_json::from_str::<Value>(&r.body).unwrap()["results"][0]["quotes"][0].clone();
        let rows = stored_shipments(&s);
        assert_eq!(rows.len(), 1);
        assert!(!rows[0].contains("kept-nowhere") && !rows[0].contains("internalNote"), "{}", rows[0]);
        let read: wire::QuoteShipment = serde_json::from_value(shipment.clone()).unwrap();
        assert_eq!(rows[0], wire::to_json(&read).unwrap());
        // beside a shipment that does not read, the body is split and read shipment by
        // shipment: the row is the same
        let unreadable = json!({"pieces": "none"});
        let r = s.handle(
            "POST",
            &format!("/restapi/v1/customers/{id}/batch-quote"),
            &json!({ "shipments": [shipment, unreadable] }).to_string(),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let answer: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(answer["results"][1]["status"], "error", "{}", r.body);
        assert_eq!(stored_shipments(&s), [rows[0].clone(), rows[0].clone()]);

        let r = s.handle(
            "POST",
            &format!("/restapi/v1/customers/{id}/paymentMethod"),
            &json!({"billingAddress": {"name": "Ann Lee", "company": "",
            "address1": "200 Market St", "address2": "", "city": "Philadelphia", "state": "PA", "zip": "19106", "country": "US"},
            "paymentMethod": {"paymentMethodType": "processorCardToken", "processorCardTokenId": "tok_1NqLx2"}})
            .to_string(),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let mut booking = shipment.clone();
        booking["carrierCode"] = quote["carrierCode"].clone();
        booking["quoteId"] = quote["quoteId"].clone();
        booking["approvePrepayRecharge"] = json!(true);
        let r = s.handle("POST", &format!("/restapi/v1/customers/{id}/shipments"), &booking.to_string());
        assert_eq!(r.status, 201, "{}", r.body);
        assert_eq!(serde_json::from_str::<Value>(&r.body).unwrap()["totalShippingCost"], quote["totalAmount"], "{}", r.body);
    }

    /// `n` domestic shipments that each get quotes.
    fn quotable(n: usize) -> Value {
        json!({ "shipments": vec![shipments()[1].clone(); n] })
    }

    /// Past the cap of quoted shipments per day, a request is refused with
    /// `TOO_MANY_REQUESTS` and the seconds to midnight UTC, before any shipment is read
    /// (a shipment that would fail does not show), and nothing is stored; a request that
    /// fits is answered; the next day starts from 0.
    #[test]
    fn past_the_quoted_shipments_of_the_day_a_request_is_refused_until_midnight() {
        let clock = Arc::new(FixedClock::at("2026-11-21T15:00:00Z").unwrap());
        let (s, id) = service_of(Shipping::builder().clock(clock.clone()).quoted_shipments_per_day(5));
        let batch = format!("/restapi/v1/customers/{id}/batch-quote");
        assert_eq!(s.handle("POST", &batch, &quotable(3).to_string()).status, 200);

        let mut over = quotable(3);
        over["shipments"][2]["weightUnit"] = json!(5);
        let r = s.handle("POST", &batch, &over.to_string());
        assert_eq!((r.status, r.retry_after), (429, Some(9 * 3600)), "{}", r.body);
        assert_eq!(serde_json::from_str::<Value>(&r.body).unwrap()["errorCategory"], "TOO_MANY_REQUESTS");
        assert_eq!(stored_shipments(&s).len(), 3);

        assert_eq!(s.handle("POST", &batch, &quotable(2).to_string()).status, 200);
        let single = s.handle("POST", &format!("/restapi/v1/customers/{id}/quote"), &shipments()[1].to_string());
        assert_eq!((single.status, single.retry_after), (429, Some(9 * 3600)), "{}", single.body);
        let typed: wire::QuoteShipment = serde_json::from_value(shipments()[1].clone()).unwrap();
        assert_eq!(s.batch_quote(&id, &[typed]).unwrap_err().category(), ErrorCategory::TooManyRequests);
        assert_eq!(stored_shipments(&s).len(), 5);

        clock.advance(chrono::Duration::hours(9));
        assert_eq!(s.handle("POST", &batch, &quotable(5).to_string()).status, 200);
        assert_eq!(stored_shipments(&s).len(), 10);
    }

    /// Priced on one connection to the file and stored on another, a batch and a single
    /// quote answer byte for byte what `handle_as` answers on one, and store the same
    /// rows; a request with nothing to store is answered by the pricing step.
    #[test]
    fn priced_on_one_connection_and_stored_on_another_as_handle_as_answers() {
        let path = std::env::temp_dir().join(format!("consign-priced-{}.db", std::process::id()));
        let clock = Arc::new(FixedClock::at("2026-11-21T15:00:00Z").unwrap());
        let (writer, id) = service_of(Shipping::builder().clock(clock.clone()).path(&path));
        let reader = Shipping::builder().clock(clock.clone()).path(&path).open().unwrap();
        let (alone, alone_id) = service_at(clock);
        assert_eq!(id, alone_id);
        let key = writer.create_api_key(Some(&id), "shop").unwrap();
        let alone_key = alone.create_api_key(Some(&id), "shop").unwrap();
        let (caller, alone_caller) = (writer.authenticate(&key.key).unwrap(), alone.authenticate(&alone_key.key).unwrap());

        let failing = json!({ "shipments": [shipments()[4].clone()] }).to_string();
        let requests = [
            ("batch-quote", json!({ "shipments": shipments() }).to_string()),
            ("quote", shipments()[1].to_string()),
            ("batch-quote", long_body(40)),
            ("batch-quote", failing.clone()),
        ];
        for (route, body) in &requests {
            let target = format!("/restapi/v1/customers/{id}/{route}");
            assert!(crate::route("POST", &target).unwrap().prices());
            let two_steps = match reader.prepare_as(&caller, "POST", &target, body) {
                crate::Prepared::Priced(priced) => writer.store_priced(priced),
                crate::Prepared::Answered(answer) => {
                    assert_eq!(*body, failing, "only the request without quotes is answered at once");
                    answer
                }
            };
            let one_step = alone.handle_as(&alone_caller, "POST", &target, body);
            assert_eq!((two_steps.status, &two_steps.body), (200, &one_step.body));
        }
        assert_eq!(stored_shipments(&writer), stored_shipments(&alone));
        assert!(!crate::route("POST", &format!("/restapi/v1/customers/{id}/shipments")).unwrap().prices());
        let other = alone.create_api_key(None, "partner").unwrap();
        let stranger = alone.authenticate(&other.key).unwrap();
        match alone.prepare_as(&stranger, "POST", &format!("/restapi/v1/customers/{id}/quote"), &requests[1].1) {
            crate::Prepared::Answered(answer) => assert_eq!(answer.status, 404, "{}", answer.body),
            crate::Prepared::Priced(_) => panic!("priced for a key that does not act for the customer"),
        }
        drop((reader, writer));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }

    /// Removed a few rows at a time, from a list found without writing, the expired
    /// quotes go exactly as they go at once: a batch's quote stays, the rest go.
    #[test]
    fn purging_a_few_at_a_time_removes_what_purging_at_once_removes() {
        let history = || {
            let clock = Arc::new(FixedClock::at("2026-11-21T15:00:00Z").unwrap());
            let (s, id) = service_at(clock.clone());
            let old = quote_ids(&s, &id);
            let r = s.handle("POST", &format!("/restapi/v1/customers/{id}/batch"), "");
            let batch = serde_json::from_str::<Value>(&r.body).unwrap()["batchId"].as_str().unwrap().to_string();
            let r =
                s.handle("POST", &format!("/restapi/v1/customers/{id}/batch/{batch}/quotes"), &json!({"quoteIds": [old[1]]}).to_string());
            assert_eq!(r.status, 200, "{}", r.body);
            clock.advance(chrono::Duration::days(20));
            quote_ids(&s, &id);
            clock.advance(chrono::Duration::days(15));
            s
        };
        let (at_once, in_parts) = (history(), history());
        let removed = at_once.purge_expired_quotes(0).unwrap();
        let mut expired = in_parts.expired_quotes(0).unwrap();
        let mut removed_in_parts = 0;
        while !expired.is_empty() {
            removed_in_parts += in_parts.purge_some_expired_quotes(&expired.take(1)).unwrap();
        }
        assert!(removed > 0);
        assert_eq!(removed_in_parts, removed);
        assert_eq!(stored_shipments(&in_parts), stored_shipments(&at_once));
        assert_eq!(in_parts.purge_some_expired_quotes(&in_parts.expired_quotes(0).unwrap()).unwrap(), 0, "a batch's row stays");
    }

    /// Parts of any size, with rows of several customers in one part and more than one
    /// statement's list of a customer's rows, remove what purging at once removes.
    #[test]
    fn purging_in_parts_of_any_size_removes_what_purging_at_once_removes_for_every_customer() {
        let history = || {
            let clock = Arc::new(FixedClock::at("2026-11-21T15:00:00Z").unwrap());
            let (s, first) = service_at(clock.clone());
            let address = json!({"name": "Bo Chen", "company": "Chen Pottery", "address1": "1 Main St", "address2": "", "city": "Boston", "state": "MA", "zip": "02108",
                "country": "US", "phone": "(617) 555-0100"});
            let body = json!({"profileCode": "Retail", "email": "bo@example.com", "password": "kiln-and-clay",
                "mailingAddress": address, "billingAddress": address, "prepaySettings": {"minimumBalance": 0, "rechargeAmount": 100}});
            let r = s.handle("POST", "/restapi/v1/customers", &body.to_string());
            assert_eq!(r.status, 201, "{}", r.body);
            let second = serde_json::from_str::<Value>(&r.body).unwrap()["customerId"].as_str().unwrap().to_string();
            for id in [&first, &second] {
                let held = quote_ids(&s, id);
                let r = s.handle("POST", &format!("/restapi/v1/customers/{id}/batch"), "");
                let batch = serde_json::from_str::<Value>(&r.body).unwrap()["batchId"].as_str().unwrap().to_string();
                let r = s.handle(
                    "POST",
                    &format!("/restapi/v1/customers/{id}/batch/{batch}/quotes"),
                    &json!({"quoteIds": [held[2]]}).to_string(),
                );
                assert_eq!(r.status, 200, "{}", r.body);
            }
            for _ in 0..5 {
                quote_ids(&s, &first);
                quote_ids(&s, &second);
            }
            clock.advance(chrono::Duration::days(35));
            s
        };
        let at_once = history();
        let expired = at_once.expired_quotes(0).unwrap().rows.len();
        let removed = at_once.purge_expired_quotes(0).unwrap();
        assert!(expired > 32 && removed > 0, "{expired} rows expired, {removed} quotes removed");
        for part in [1, 5, 40] {
            let in_parts = history();
            let mut expired = in_parts.expired_quotes(0).unwrap();
            let mut removed_in_parts = 0;
            while !expired.is_empty() {
                removed_in_parts += in_parts.purge_some_expired_quotes(&expired.take(part)).unwrap();
            }
            assert_eq!(removed_in_parts, removed, "parts of {part}");
            assert_eq!(stored_shipments(&in_parts), stored_shipments(&at_once), "parts of {part}");
        }
    }
}
