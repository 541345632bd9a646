//! The facade's quoting operations: batch quote (4.1), the single-shipment quote
//! (DECISIONS 9), and stored quotes.

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::Shipping;
use crate::error::{Error, ErrorCategory, Result};
use crate::quoting::{self, Context, Form};
use crate::{accounts, wire};

impl Shipping {
    /// Batch quote (4.1), `POST .../batch-quote`, for Rust callers with typed shipments.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown customer; `LIMIT_EXCEEDED` for more than 500
    /// shipments. Everything about one shipment is in its result instead.
    pub fn batch_quote(&self, customer_id: &str, shipments: &[wire::QuoteShipment]) -> Result<wire::BatchQuoteResponse> {
        quoting::check_batch_size(shipments.len())?;
        self.quote_shipments(
            customer_id,
            Form::Batch,
            shipments,
            |s| Ok((Cow::Borrowed(s), None)),
            |outcomes| Ok(quoting::answer(outcomes)),
        )
    }

    /// Batch quote from the request body as sent, answered with the JSON of
    /// [`wire::BatchQuoteResponse`]: each shipment is parsed on its own, so that one whose
    /// JSON does not fit the shipment shape fails alone, and its row keeps its JSON as
    /// sent.
    pub(crate) fn batch_quote_json(&self, customer_id: &str, body: &str) -> Result<String> {
        let req: BorrowedBatchQuoteRequest = wire::parse_borrowed(body)?;
        quoting::check_batch_size(req.shipments.len())?;
        self.quote_shipments(
            customer_id,
            Form::Batch,
            &req.shipments,
            |raw| wire::parse_body(raw.get()).map(|s| (Cow::Owned(s), Some(raw.get()))),
            |outcomes| quoting::answer_json(&outcomes),
        )
    }

    /// Quotes the shipments that `read` makes of `items`, sent in `form`, for the
    /// customer: reads the customer, prices every shipment outside any transaction,
    /// numbers and stores the quotes in one, and makes the answer of them with `answer`.
    fn quote_shipments<'a, T, A>(
        &self,
        customer_id: &str,
        form: Form,
        items: &'a [T],
        read: impl Fn(&'a T) -> quoting::Requested<'a>,
        answer: impl FnOnce(Vec<quoting::Outcome<'a, '_>>) -> Result<A>,
    ) -> Result<A> {
        let (customer, catalog, provider_accounts) = self.read(|conn| {
            let (customer, catalog) = self.customer(conn, customer_id)?;
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
        let mut outcomes = quoting::price_all(&ctx, items, read);
        let now = self.clock.now();
        self.write(|tx| {
            quoting::number(tx, &mut outcomes)?;
            quoting::store(tx, customer_id, now, &outcomes)
        })?;
        answer(outcomes)
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
    /// could not be quoted.
    pub fn quote(&self, customer_id: &str, shipment: &wire::QuoteShipment) -> Result<wire::QuoteAnswer> {
        let all_named = shipment.carrier_code.is_some() && shipment.service_code.is_some() && shipment.package_type_code.is_some();
        self.quote_shipments(
            customer_id,
            Form::Single,
            std::slice::from_ref(shipment),
            |s| Ok((Cow::Borrowed(s), None)),
            |outcomes| {
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
            },
        )
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
}

/// Body of `POST .../batch-quote`, borrowing each shipment's JSON from the body (as
/// [`wire::BatchQuoteRequest`], without copying every shipment out of it).
#[derive(serde::Deserialize)]
struct BorrowedBatchQuoteRequest<'a> {
    #[serde(borrow, deserialize_with = "wire::bounded::at_most::<_, _, { quoting::MAX_BATCH }>")]
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
        let shipping = Shipping::builder().clock(clock).open().unwrap();
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
                let mut q = conn.prepare("SELECT first_quote_id, shipment FROM quoted_shipments ORDER BY first_quote_id")?;
                let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
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
                Ok(c.query_row("SELECT count(*), sum(quote_count) FROM quoted_shipments", [], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
                })?)
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
                Ok(c.query_row("SELECT quote_count FROM quoted_shipments WHERE first_quote_id = ?1", [old[1]], |r| r.get::<_, i64>(0))?)
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
}
