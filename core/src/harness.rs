//! For the benchmarks (`benches/`) and the fuzz targets (`fuzz/`, docs/fuzzing.md) only,
//! behind the cargo features `bench` and `fuzzing`: none of this is part of consign's
//! interface.
//!
//! For the benchmarks: loaders that fill a database faster than the operations would,
//! and the stored form of quotes, so that the floor of the batch-quote benchmark stores
//! the same bytes as the service. For the fuzz targets: thin wrappers that reach the
//! crate-private readers of untrusted bytes, so that each can be fuzzed on its own.

use crate::error::{Error, Result};
use crate::rating::rows::{CalendarRow, CarrierRow, ExchangeRow, PriceRow, RateRow, SurchargeRow, TransitRow, ZoneRow};
use crate::rating::CsvKind;
use crate::shipping::Shipping;
use crate::store::args;
use crate::{router, search, shipments, wire};

/// The packed form in which the service stores a shipment's quotes.
pub fn pack_quotes(quotes: &[wire::Quote]) -> Vec<u8> {
    crate::quoting::packed::pack_quotes(quotes)
}

/// The JSON in which the service stores a quoted shipment: serde's text, by the
/// service's writer.
pub fn shipment_json(shipment: &wire::QuoteShipment) -> String {
    wire::shipment_json(shipment)
}

/// The JSON of `answer`, written as the service writes a batch answer: the same text as
/// serde's, by the same writer.
///
/// # Errors
/// Only if a failed result cannot be serialised.
pub fn answer_json(answer: &wire::BatchQuoteResponse) -> Result<String> {
    let mut out = String::from("{\"results\":[");
    for (i, r) in answer.results.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match (&r.quotes, &r.quote_errors) {
            (Some(quotes), Some(errors)) => {
                let quotes =
                    quotes.iter().map(|q| (wire::quote_fields(q), q.surcharges.iter().map(|l| (l.description.as_str(), l.amount))));
                wire::write_quoted_result(&mut out, r.shipment_index, |out| wire::write_quotes(out, quotes), errors);
            }
            _ => out.push_str(&wire::to_json(r)?),
        }
    }
    out.push_str("]}");
    Ok(out)
}

/// Copies booked shipment `template` of `customer_id` `count`
/// times with the SQL booking uses (shipment row, pieces, index), letting `vary`
/// change each copy's view (its book number and tracking numbers are set first, from
/// the booking sequences). One transaction per call.
///
/// # Errors
/// `NOT_FOUND` for an unknown template; storage failures.
pub fn insert_shipment_copies(
    shipping: &Shipping,
    customer_id: &str,
    template: &str,
    count: u32,
    mut vary: impl FnMut(u32, &mut wire::ShipmentView),
) -> Result<()> {
    let catalog = shipping.catalog();
    shipping.write(|tx| {
        crate::store::search::bulk_loading(tx, true)?;
        let base = shipments::find(tx, customer_id, template)?;
        type Row = (String, String, String, String, String, String, String, String, String, String, i64, String);
        let row: Row = tx.one(
            "SELECT carrier_code, service_code, package_type_code, family, shipment_date, shipment_date, zone, currency,
                    total_amount, label_format, charged_cents, created_at
             FROM shipments WHERE book_number = ?1",
            args![template],
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
        let kind = catalog
            .carrier(&row.0)
            .and_then(|c| c.tracking_kind(&row.3))
            .ok_or_else(|| Error::internal("the template's carrier has no tracking numbers"))?;
        let search_key = search::customer_key(tx, customer_id)?;
        let tracking_sequence = format!("tracking_{}", row.0);
        crate::store::reserve_ids(tx, &[("book_number", count as usize), (tracking_sequence.as_str(), count as usize)])?;
        for i in 0..count {
            let seq = crate::store::next_id(tx, "book_number")?;
            let mut view = base.view.clone();
            view.book_number = format!("{}", 1_000_000_000 + seq);
            let tn = crate::tracking_number::generate(kind, crate::store::next_id(tx, &tracking_sequence)? as u64, customer_id);
            view.tracking_number = tn.clone();
            view.tracking_numbers = vec![tn.clone()];
            vary(i, &mut view);
            tx.execute_later(
                "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family, tracking_number,
                    shipment_date, zone, currency, total_amount, charged_cents, label_format, quote_id, view, view_shape, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, NULL, ?14, ?15, ?16)",
                args![
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
                shipments::view_shape(),
                    row.11,
                ],
            )?;
            tx.execute_later(
                "INSERT INTO shipment_pieces (book_number, piece_index, tracking_number, shipping_cost, customer_id) VALUES (?1, ?2, ?3, ?4, ?5)",
                args![view.book_number, 0, view.tracking_number, row.8, customer_id],
            )?;
            tx.execute_later(crate::tracking::RECORD_TRACKING_NUMBER, args![view.tracking_number, customer_id, view.book_number, 0])?;
            search::index_now(tx, customer_id, search_key, seq, &view)?;
        }
        // The copies are indexed already: a search must not scan them as waiting.
        crate::store::search::flush(tx)?;
        crate::store::search::bulk_loading(tx, false)?;
        Ok(())
    })
}

/// The quotes of a stored `quotes` column (the packed form), their ids from `first_id`.
///
/// # Errors
/// The reason, when `packed` is not in the packed form.
pub fn unpack_quotes(packed: &[u8], first_id: i64) -> std::result::Result<Vec<wire::Quote>, String> {
    crate::quoting::packed::unpack_quotes(packed, first_id)
}

/// A stored row of the rate table of `kind` whose columns (in [`CsvKind::columns`]
/// order, missing ones empty) hold `columns`, read as the service reads it from SQLite;
/// its canonical text (what an import stores) when it reads.
///
/// # Errors
/// The reason, when the row does not read.
pub fn read_rate_row(kind: CsvKind, columns: &[&str]) -> std::result::Result<Vec<String>, String> {
    thread_local! {
        static DB: Option<crate::store::Database> = crate::store::Database::open(None, None, crate::store::Settings::default()).ok();
    }
    fn values<T: RateRow>(row: &crate::store::Row<'_>) -> crate::Result<Vec<String>> {
        T::from_row(row).map(|r| r.values())
    }
    let select: Vec<String> = kind.columns().iter().enumerate().map(|(i, name)| format!("?{} AS \"{name}\"", i + 1)).collect();
    let texts: Vec<&str> = (0..kind.columns().len()).map(|i| columns.get(i).copied().unwrap_or("")).collect();
    let args: Vec<&dyn crate::store::sql::Arg> = texts.iter().map(|t| t as &dyn crate::store::sql::Arg).collect();
    DB.with(|db| {
        let db = db.as_ref().ok_or("no in-memory database")?;
        let read = match kind {
            CsvKind::Carriers => values::<CarrierRow>,
            CsvKind::ExchangeRates => values::<ExchangeRow>,
            CsvKind::Zones => values::<ZoneRow>,
            CsvKind::Rates => values::<PriceRow>,
            CsvKind::Surcharges => values::<SurchargeRow>,
            CsvKind::Transit => values::<TransitRow>,
            CsvKind::Calendars => values::<CalendarRow>,
        };
        db.read(|conn| conn.one(&format!("SELECT {}", select.join(", ")), &args, read)).map_err(|e| e.to_string())
    })
}

/// A route of `Shipping::handle` found for a request: its method, its pattern and the
/// decoded path parameters by name.
#[derive(Debug)]
pub struct Found {
    /// `GET`, `POST`, `PUT` or `DELETE`.
    pub method: &'static str,
    /// The pattern as the spec writes it.
    pub pattern: &'static str,
    /// The decoded parameters, in the pattern's order.
    pub params: Vec<(&'static str, String)>,
}

/// The route that serves `method` on `path` (without its query), as `handle` finds it.
///
/// # Errors
/// As `handle` answers: `NOT_FOUND`, `METHOD_NOT_ALLOWED` or `INVALID_REQUEST`.
pub fn lookup(method: &str, path: &str) -> Result<Found> {
    let found = router::lookup(method, path)?;
    let mut params = Vec::new();
    for name in found.route.pattern.split('/').filter_map(|s| s.strip_prefix(':')) {
        params.push((name, found.params.get(name)?.to_string()));
    }
    Ok(Found { method: found.route.method.as_str(), pattern: found.route.pattern, params })
}

/// A path parameter `raw` decoded as `handle` decodes it.
///
/// # Errors
/// `INVALID_REQUEST` naming `name` for a malformed escape or escapes that are not UTF-8.
pub fn decode_param(name: &str, raw: &str) -> Result<String> {
    router::decode_param(name, raw).map(std::borrow::Cow::into_owned)
}

/// The value of `name` in the query string `query`, as the handlers read it.
pub fn query_value(query: &str, name: &str) -> Option<String> {
    router::Query(query).get(name).map(std::borrow::Cow::into_owned)
}

/// The (method, pattern) lines of the route table, in its order.
pub fn routes() -> Vec<(&'static str, &'static str)> {
    router::routes().collect()
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;

    use super::*;

    /// The floor's answer is serde's text, as the service's is.
    #[test]
    fn the_answer_is_written_as_serde_writes_it() {
        let quote = wire::Quote {
            quote_id: 1_000_000_001,
            carrier_code: "parcel".into(),
            service_code: "parcel_ground".into(),
            service_description: "Ground \"Home\"".into(),
            package_type_code: "parcel_custom".into(),
            currency: "USD".into(),
            total_amount: Decimal::new(2505, 2),
            base_amount: Decimal::new(1169, 2),
            zone: "5".into(),
            quoted_weight: "2.5".into(),
            quoted_weight_type: "Actual".into(),
            transit_days: Some(3),
            estimated_delivery_date: chrono::NaiveDate::from_ymd_opt(2026, 11, 30),
            delivery_date_guaranteed: false,
            surcharges: vec![wire::QuoteSurcharge { description: "Fuel".into(), amount: Decimal::new(326, 2) }],
        };
        let error = Error::invalid("shipments[1].sender.state", "expected a two-letter US state code");
        let answer = wire::BatchQuoteResponse {
            results: vec![
                wire::ShipmentQuotes {
                    shipment_index: 0,
                    status: "success".into(),
                    quotes: Some(vec![quote.clone(), quote]),
                    quote_errors: Some(vec![]),
                    error: None,
                    error_category: None,
                    details: None,
                },
                wire::ShipmentQuotes {
                    shipment_index: 1,
                    status: "error".into(),
                    quotes: None,
                    quote_errors: None,
                    error: Some(error.message().into()),
                    error_category: Some(error.category().code().into()),
                    details: Some(error.details().to_vec()),
                },
            ],
        };
        assert_eq!(answer_json(&answer).unwrap(), serde_json::to_string(&answer).unwrap());
    }
}
