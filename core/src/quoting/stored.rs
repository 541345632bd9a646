//! Stored quotes: one row per quoted shipment, holding the shipment as it was read and
//! its quotes packed, with a contiguous range of quote ids; finding a quote again, the
//! daily cap of quoted shipments, and purging the expired.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use crate::error::{Error, ErrorCategory, Result};
use crate::wire;

use super::{packed, Row};
use crate::store::sql::Arg;
use crate::store::{args, Read, Tx};

/// How long a quote can be booked: 30 x 24 hours (DECISIONS 3).
pub const QUOTE_LIFETIME_SECS: i64 = 30 * 24 * 3600;

/// Stores `rows`, whose ids start at `first` (reserved by the caller), with their
/// shipments' JSON and their quotes packed.
pub(crate) fn store(tx: &Tx<'_>, customer_id: &str, now: DateTime<Utc>, first: i64, rows: &[Row]) -> Result<()> {
    let created = now.timestamp();
    let mut insert = tx.statement(
        "INSERT INTO quoted_shipments (customer_id, first_quote_id, quote_count, shipment, quotes, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for row in rows {
        insert.execute(args![
            customer_id,
            first + row.first,
            row.count,
            row.shipment,
            row.packed,
            created,
            created + QUOTE_LIFETIME_SECS
        ])?;
    }
    Ok(())
}

/// How many quoted shipments of the customer were stored on `day` (UTC).
pub(crate) fn stored_on(conn: &Read<'_>, customer_id: &str, day: NaiveDate) -> Result<u64> {
    let n: Option<i64> =
        conn.row("SELECT shipments FROM quote_days WHERE customer_id = ?1 AND day = ?2", args![customer_id, day.to_string()], |r| {
            r.get(0)
        })?;
    Ok(n.map_or(0, |n| u64::try_from(n).unwrap_or(0)))
}

/// Adds `n` quoted shipments of the customer to the count of `day` (UTC); the count of
/// an earlier day is replaced.
pub(crate) fn count_stored(tx: &Tx<'_>, customer_id: &str, day: NaiveDate, n: u64) -> Result<()> {
    tx.execute(
        "INSERT INTO quote_days (customer_id, day, shipments) VALUES (?1, ?2, ?3)
         ON CONFLICT (customer_id) DO UPDATE SET
             shipments = CASE WHEN quote_days.day = excluded.day THEN quote_days.shipments + excluded.shipments ELSE excluded.shipments END,
             day = excluded.day",
        args![customer_id, day.to_string(), i64::try_from(n).unwrap_or(i64::MAX)],
    )?;
    Ok(())
}

/// Refuses `n` more quoted shipments of a customer who stored `stored` on the UTC day of
/// `now`, when they would take the day's count over `cap`.
///
/// # Errors
/// `TOO_MANY_REQUESTS`, to be retried at the next UTC midnight.
pub(crate) fn check_daily_cap(stored: u64, n: u64, cap: u64, now: DateTime<Utc>) -> Result<()> {
    if stored.saturating_add(n) <= cap {
        return Ok(());
    }
    let midnight = now.date_naive().succ_opt().and_then(|d| d.and_hms_opt(0, 0, 0)).map(|t| t.and_utc());
    let wait = midnight.map_or(86_400, |m| (m - now).num_seconds().max(1));
    let left = cap.saturating_sub(stored);
    Err(Error::new(
        ErrorCategory::TooManyRequests,
        format!(
            "A customer may store at most {cap} quoted shipments per day (UTC); {left} are left today and this request has {n}. \
             Quote again after midnight UTC."
        ),
    )
    .with_retry_after(u64::try_from(wait).unwrap_or(1)))
}

/// The `first_quote_id` of each row of `quoted_shipments` that holds a quote of a batch
/// (of the batches `batch_quotes b` the filter leaves). Quote ids are unique across
/// customers, so a row's `first_quote_id` names it; the list is of one column, which
/// SQLite checks `NOT IN` by one lookup (a list of two, which may hold NULL, it scans).
macro_rules! held {
    ($filter:literal) => {
        concat!(
            "SELECT kept FROM (
                SELECT (SELECT q.first_quote_id FROM quoted_shipments q
                        WHERE q.customer_id = b.customer_id AND q.first_quote_id <= b.quote_id
                        ORDER BY q.first_quote_id DESC LIMIT 1) AS kept
                FROM batch_quotes b",
            $filter,
            ") AS h WHERE kept IS NOT NULL"
        )
    };
}

/// Removes the stored quotes (of every customer) that expired at or before `cutoff`
/// (unix seconds), except those a batch holds, and returns how many quotes it removed.
///
/// A booking keeps its own copy of what it was booked at, so its quote can go. A batch
/// shows its quotes and books from them, so a quoted shipment stays while any of its
/// quotes is in a batch (an open batch's expired quotes cannot be booked anyway; they
/// go once the batch is deleted). One pass over the table: the purge is a maintenance
/// task, and an index on `expires_at` would cost every quote stored.
pub(crate) fn purge_expired(tx: &Tx<'_>, cutoff: i64) -> Result<u64> {
    let counts: Vec<i64> = tx
        .statement(concat!(
            "DELETE FROM quoted_shipments WHERE expires_at <= ?1 AND first_quote_id NOT IN (",
            held!(""),
            ") RETURNING quote_count"
        ))?
        .rows(args![cutoff], |r| r.get(0))?;
    Ok(counts.into_iter().map(|n| u64::try_from(n).unwrap_or(0)).sum())
}

/// The keys (customer and `first_quote_id`) of the rows of `quoted_shipments` expired
/// at or before `cutoff`, in key order: what [`purge_expired`] would remove and the
/// batches' rows, found without writing. A customer's id is kept once, however many of
/// its rows expired.
pub(crate) fn expired_rows(conn: &Read<'_>, cutoff: i64) -> Result<Vec<(Arc<str>, i64)>> {
    let mut customers: HashSet<Arc<str>> = HashSet::new();
    // One pass over the table, sorted here: an ORDER BY would read it along its key.
    let mut rows = conn.rows("SELECT customer_id, first_quote_id FROM quoted_shipments WHERE expires_at <= ?1", args![cutoff], |r| {
        let customer: String = r.get(0)?;
        let customer = match customers.get(customer.as_str()) {
            Some(c) => Arc::clone(c),
            None => {
                let c: Arc<str> = customer.into();
                customers.insert(Arc::clone(&c));
                c
            }
        };
        Ok((customer, r.get(1)?))
    })?;
    rows.sort_unstable();
    Ok(rows)
}

/// The lengths of the lists of keys [`purge_rows`] removes one customer's rows by: a
/// list is padded to the shortest that holds it (repeating its last key), so that three
/// statements serve every part.
const LISTS: [usize; 3] = [1, 16, 256];

/// Removes the rows `rows` (from [`expired_rows`]) that are still expired at `cutoff`
/// and hold no quote of a batch, and returns how many quotes they held. One statement
/// per customer of `rows` (per 256 of its rows), which looks at that customer's batches
/// only.
pub(crate) fn purge_rows(tx: &Tx<'_>, cutoff: i64, rows: &[(Arc<str>, i64)]) -> Result<u64> {
    let mut by_customer: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for (customer, first) in rows {
        by_customer.entry(customer).or_default().push(*first);
    }
    let mut removed = 0;
    for (customer, firsts) in &by_customer {
        for part in firsts.chunks(LISTS[LISTS.len() - 1]) {
            let Some(&last) = part.last() else { continue };
            let len = LISTS.into_iter().find(|&n| n >= part.len()).unwrap_or(part.len());
            let marks: Vec<String> = (3..len + 3).map(|i| format!("?{i}")).collect();
            let mut values: Vec<&dyn Arg> = vec![&cutoff, customer];
            values.extend(part.iter().chain(std::iter::repeat(&last)).take(len).map(|f| f as &dyn Arg));
            let counts: Vec<i64> = tx
                .statement(&format!(
                    "DELETE FROM quoted_shipments WHERE customer_id = ?2 AND first_quote_id IN ({}) AND expires_at <= ?1
                     AND first_quote_id NOT IN ({}) RETURNING quote_count",
                    marks.join(", "),
                    held!(" WHERE b.customer_id = ?2")
                ))?
                .rows(&values, |r| r.get(0))?;
            removed += counts.into_iter().map(|n| u64::try_from(n).unwrap_or(0)).sum::<u64>();
        }
    }
    Ok(removed)
}

/// Expired quotes found without writing by [`crate::Shipping::expired_quotes`], to be
/// removed a few rows at a time by [`crate::Shipping::purge_some_expired_quotes`], so
/// that no removal holds the write lock for long.
#[derive(Debug, Clone, Default)]
pub struct ExpiredQuotes {
    pub(crate) cutoff: i64,
    /// Keys of rows of `quoted_shipments`: the customer and `first_quote_id`.
    pub(crate) rows: Vec<(Arc<str>, i64)>,
}

impl ExpiredQuotes {
    /// True when nothing is left to remove.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The first `at_most` rows (quoted shipments) to remove, taken out of these.
    pub fn take(&mut self, at_most: usize) -> ExpiredQuotes {
        let rest = self.rows.split_off(at_most.min(self.rows.len()));
        ExpiredQuotes { cutoff: self.cutoff, rows: std::mem::replace(&mut self.rows, rest) }
    }
}

/// A stored quote with the shipment it was made for.
#[derive(Debug, Clone)]
pub struct StoredQuote {
    /// The quote as answered.
    pub quote: wire::Quote,
    /// The request shipment's JSON as its row keeps it: read it with
    /// [`StoredQuote::shipment`].
    pub(crate) shipment_json: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it stops being bookable.
    pub expires_at: DateTime<Utc>,
}

impl StoredQuote {
    /// The shipment the quote was made for, as it was read from the request.
    ///
    /// # Errors
    /// `INTERNAL_ERROR` when its stored row is damaged.
    pub fn shipment(&self) -> Result<wire::QuoteShipment> {
        serde_json::from_str(&self.shipment_json)
            .map_err(|e| Error::internal(format!("quote {}'s shipment is unreadable: {e}", self.quote.quote_id)))
    }
}

/// The customer's quote `quote_id`, or `None` (unknown or another customer's).
pub(crate) fn find(conn: &Read<'_>, customer_id: &str, quote_id: i64) -> Result<Option<StoredQuote>> {
    // The customer's row whose id range starts at or below the quote: one step down its
    // key. Another customer's quote is simply not found.
    let found = conn.row(
        "SELECT customer_id, first_quote_id, quote_count, shipment, quotes, created_at, expires_at FROM quoted_shipments
         WHERE customer_id = ?2 AND first_quote_id <= ?1 ORDER BY first_quote_id DESC LIMIT 1",
        args![quote_id, customer_id],
        |row| {
            let (owner, first, count): (String, i64, i64) = (row.get(0)?, row.get(1)?, row.get(2)?);
            if owner != customer_id || quote_id >= first + count {
                return Ok(None);
            }
            let unreadable = |what: &str, e: String| Error::internal(format!("stored {what} of quote {quote_id} is unreadable: {e}"));
            let shipment_json: String = row.get(3)?;
            let quotes = packed::unpack_quotes(row.blob(4)?, first).map_err(|e| unreadable("quotes", e))?;
            let Some(quote) = usize::try_from(quote_id - first).ok().and_then(|i| quotes.into_iter().nth(i)) else { return Ok(None) };
            let at = |secs: i64| DateTime::from_timestamp(secs, 0).unwrap_or_default();
            Ok(Some(StoredQuote { quote, shipment_json, created_at: at(row.get(5)?), expires_at: at(row.get(6)?) }))
        },
    )?;
    Ok(found.flatten())
}

#[cfg(test)]
mod tests {

    use rust_decimal::Decimal;

    use super::super::{number, pack, rows, Outcome, PricedQuote, Quoted};
    use super::*;
    use crate::catalog::Catalog;
    use crate::rating::{Currency, Lines, Rate, Surcharge, SurchargeKind, WeightType, WeightUnit, Zone};
    use crate::wire;
    /// A request's quotes are numbered in order and stored packed, exactly as
    /// `packed::pack_quotes` packs the quotes the answer shows, beside the shipment's JSON
    /// (the row keeps the text it is given), and each quote is found again with it.
    #[test]
    fn quotes_are_stored_packed_and_found_again() {
        let mut conn = crate::store::testing::with_customer(None);
        let catalog = Catalog::default_catalog().unwrap();
        let amount = |text: &str| text.parse::<Decimal>().unwrap();
        let quote = |service: usize, lines: Vec<(SurchargeKind, &str)>| PricedQuote {
            quote_id: 0,
            service: &catalog.services()[service],
            package_type: "parcel_custom",
            rate: Rate {
                zone: Zone::new("5").unwrap(),
                base: amount("11.69"),
                surcharges: Lines::of(&lines.into_iter().map(|(kind, a)| Surcharge { kind, amount: amount(a) }).collect::<Vec<_>>()),
                total: amount("25.05"),
                quoted_weight: amount("2.50"),
                quoted_weight_unit: WeightUnit::Lb,
                weight_type: WeightType::Actual,
                currency: Currency::Usd,
            },
            arrival: None,
        };
        // a shipment with line items, and a plain one
        let with_items = r#"{ "shipmentDate": "2026-11-23", "shipmentReference": "R1", "sender": {"name": "Ann \"A\" Lee", "zip": "19106"},
            "receiver": {"zip": null}, "weightUnit": "lb", "dimUnit": null, "currency": "USD",
            "pieces": [{"weight": 2, "lineItems": [{"sku": "A", "productName": "Mug", "quantity": 2}]}] }"#;
        let plain = with_items.replace(r#", "lineItems": [{"sku": "A", "productName": "Mug", "quantity": 2}]"#, "");
        let parse = |json: &str| serde_json::from_str::<wire::QuoteShipment>(json).unwrap();
        fn quoted<'c>(quotes: Vec<PricedQuote<'c>>, json: &str) -> Outcome<'c> {
            let mut packed = Vec::new();
            pack(&mut packed, &quotes);
            Ok(Quoted { quotes, errors: vec![], shipment_json: json.to_string(), packed })
        }
        // the first as written by hand, the second as serde writes it; a failed shipment
        // and one without quotes store nothing
        let typed = wire::to_json(&parse(&plain)).unwrap();
        let mut outcomes: Vec<Outcome> = vec![
            quoted(vec![quote(0, vec![(SurchargeKind::Fuel, "3.26")]), quote(1, vec![])], with_items),
            Err(Error::invalid("x", "y")),
            quoted(vec![], "{}"),
            quoted(vec![quote(2, vec![(SurchargeKind::Residential, "5.95"), (SurchargeKind::Insurance, "4.15")])], &typed),
        ];
        let now = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let tx = conn.transaction().unwrap();
        assert_eq!(number(&mut outcomes, 0), 3);
        let rows = rows(&mut outcomes);
        let first = crate::store::next_ids(&crate::store::Tx::of(&tx), "quote", 3).unwrap();
        store(&crate::store::Tx::of(&tx), "C1", now, first, &rows).unwrap();
        tx.commit().unwrap();
        for q in outcomes.iter_mut().filter_map(|o| o.as_mut().ok()).flat_map(|q| q.quotes.iter_mut()) {
            q.quote_id += first;
        }
        // first quote id, the shipment's JSON, the quotes' type and bytes
        type Row = (i64, String, String, Vec<u8>);
        let stored: Vec<Row> = conn
            .prepare("SELECT first_quote_id, shipment, typeof(quotes), quotes FROM quoted_shipments ORDER BY first_quote_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(stored.len(), 2);
        let (first, second) = match &outcomes[..] {
            [Ok(first), _, _, Ok(second)] => (
                first.quotes.iter().map(PricedQuote::to_wire).collect::<Vec<_>>(),
                second.quotes.iter().map(PricedQuote::to_wire).collect::<Vec<_>>(),
            ),
            _ => unreachable!(),
        };
        assert_eq!((first[0].quote_id + 1, first[1].quote_id + 1), (first[1].quote_id, second[0].quote_id));
        let expected = [(&first, with_items), (&second, typed.as_str())];
        for ((first_id, shipment, quotes_type, quotes), (wire, json)) in stored.iter().zip(expected) {
            assert_eq!((shipment.as_str(), quotes_type.as_str()), (json, "blob"));
            assert_eq!(*quotes, packed::pack_quotes(wire));
            assert_eq!(*first_id, wire[0].quote_id);
            for q in wire {
                let found = find(&crate::store::Read::of(&conn), "C1", q.quote_id).unwrap().unwrap();
                assert_eq!(found.quote, *q);
                assert_eq!(found.shipment().unwrap(), parse(json));
                assert_eq!(found.expires_at.timestamp(), 1_800_000_000 + QUOTE_LIFETIME_SECS);
            }
        }
        assert!(find(&crate::store::Read::of(&conn), "C2", first[0].quote_id).unwrap().is_none());
        assert!(find(&crate::store::Read::of(&conn), "C1", second[0].quote_id + 1).unwrap().is_none());
    }
}
