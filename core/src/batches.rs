//! Batches (DECISIONS 9): quotes gathered to be booked together, and batch book.
//!
//! Batch book books each quote from the shipment it was quoted for, at the quoted
//! price, each inside a savepoint of one transaction: a quote that cannot be booked
//! (expired, invalid as a booking, unaffordable) is reported alone and leaves nothing
//! behind, while the others are booked, each with its own ledger entry and labels. A
//! batch becomes `booked` when every quote of it is; booking it again books only what
//! is left.

use chrono::{DateTime, NaiveDate, Utc};

use crate::booking;
use crate::catalog::Catalog;
use crate::dates::timestamp;
use crate::error::{Error, ErrorCategory, Result};
use crate::events;
use crate::ledger;
use crate::limits::MAX_BATCH_QUOTES;
use crate::money::{format2, from_cents};
use crate::quoting;
use crate::store::{args, Read, Tx};
use crate::{labels, shipments, store, wire};

/// Create batch.
pub(crate) fn create(
    tx: &Tx<'_>,
    customer_id: &str,
    req: &wire::CreateBatchRequest,
    now: DateTime<Utc>,
) -> Result<wire::CreateBatchResponse> {
    let name = req.name.as_deref().map(str::trim).unwrap_or_default();
    if name.chars().count() > 100 {
        return Err(Error::invalid("name", "must be at most 100 characters"));
    }
    let id = format!("B{:07}", store::next_id(tx, "batch")?);
    tx.execute(
        "INSERT INTO batches (id, customer_id, name, status, created_at) VALUES (?1, ?2, ?3, 'open', ?4)",
        args![id, customer_id, name, timestamp(now)],
    )?;
    Ok(wire::CreateBatchResponse { batch_id: id })
}

struct BatchRow {
    name: String,
    status: String,
    created_at: String,
}

fn find(conn: &Read<'_>, customer_id: &str, batch_id: &str) -> Result<BatchRow> {
    conn.row("SELECT name, status, created_at FROM batches WHERE id = ?1 AND customer_id = ?2", args![batch_id, customer_id], |r| {
        Ok(BatchRow { name: r.get(0)?, status: r.get(1)?, created_at: r.get(2)? })
    })?
    .ok_or_else(|| Error::not_found("batch", batch_id))
}

/// The batch's quote ids with their book numbers, in the order they were added.
fn members(conn: &Read<'_>, customer_id: &str, batch_id: &str) -> Result<Vec<(i64, Option<String>)>> {
    conn.rows(
        "SELECT quote_id, book_number FROM batch_quotes WHERE customer_id = ?2 AND batch_id = ?1 ORDER BY position",
        args![batch_id, customer_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// Get batch.
pub(crate) fn get(conn: &Read<'_>, customer_id: &str, batch_id: &str) -> Result<wire::Batch> {
    let row = find(conn, customer_id, batch_id)?;
    let quotes = members(conn, customer_id, batch_id)?
        .into_iter()
        .map(|(id, book_number)| {
            let stored = quoting::find(conn, customer_id, id)?
                .ok_or_else(|| Error::internal(format!("batch {batch_id} holds a missing quote {id}")))?;
            Ok(wire::BatchQuote { quote: stored.quote, book_number })
        })
        .collect::<Result<_>>()?;
    Ok(wire::Batch { batch_id: batch_id.to_string(), name: row.name, status: row.status, created_at: row.created_at, quotes })
}

/// List batches, newest first.
pub(crate) fn list(conn: &Read<'_>, customer_id: &str) -> Result<wire::BatchesResponse> {
    let batches = conn.rows(
        "SELECT b.id, b.name, b.status, b.created_at, (SELECT COUNT(*) FROM batch_quotes q WHERE q.customer_id = b.customer_id AND q.batch_id = b.id)
         FROM batches b WHERE b.customer_id = ?1 ORDER BY b.id DESC",
        args![customer_id],
        |r| {
            Ok(wire::BatchSummary {
                batch_id: r.get(0)?,
                name: r.get(1)?,
                status: r.get(2)?,
                created_at: r.get(3)?,
                quote_count: r.get::<i64>(4).map(|n| usize::try_from(n).unwrap_or(0))?,
            })
        },
    )?;
    Ok(wire::BatchesResponse { batches })
}

/// Add quotes to a batch: every quote must be the customer's (else 404) and not expired
/// (else 409 QUOTE_EXPIRED); nothing is added unless all are. A quote already in the
/// batch is not added twice.
pub(crate) fn add_quotes(
    tx: &Tx<'_>,
    customer_id: &str,
    batch_id: &str,
    req: &wire::AddQuotesRequest,
    now: DateTime<Utc>,
) -> Result<wire::Batch> {
    let row = find(tx, customer_id, batch_id)?;
    if row.status == "booked" {
        return Err(Error::conflict(format!("Batch {batch_id} is booked; create a new batch.")));
    }
    if req.quote_ids.is_empty() {
        return Err(Error::invalid("quoteIds", "must name at least one quote"));
    }
    // Checked before any quote is looked up: a request that cannot fit must not cost a
    // lookup per id inside the write transaction.
    if req.quote_ids.len() > MAX_BATCH_QUOTES {
        return Err(Error::fields(
            ErrorCategory::LimitExceeded,
            vec![crate::FieldError {
                field: "quoteIds".into(),
                message: format!("a batch holds at most {MAX_BATCH_QUOTES} quotes, found {} ids", req.quote_ids.len()),
            }],
        ));
    }
    let existing = members(tx, customer_id, batch_id)?;
    for (i, id) in req.quote_ids.iter().enumerate() {
        let stored = quoting::find(tx, customer_id, id.0)?.ok_or_else(|| {
            Error::fields(
                ErrorCategory::NotFound,
                vec![crate::FieldError { field: format!("quoteIds[{i}]"), message: format!("no quote {} was found", id.0) }],
            )
        })?;
        if now >= stored.expires_at {
            return Err(Error::fields(
                ErrorCategory::QuoteExpired,
                vec![crate::FieldError {
                    field: format!("quoteIds[{i}]"),
                    message: format!("quote {} expired on {}", id.0, stored.expires_at.date_naive()),
                }],
            ));
        }
    }
    let mut position = i64::try_from(existing.len()).unwrap_or(i64::MAX);
    let mut insert = tx
        .statement("INSERT INTO batch_quotes (batch_id, position, quote_id, customer_id) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")?;
    for id in &req.quote_ids {
        if insert.execute(args![batch_id, position, id.0, customer_id])? > 0 {
            position += 1;
        }
    }
    if usize::try_from(position).unwrap_or(usize::MAX) > MAX_BATCH_QUOTES {
        return Err(Error::new(ErrorCategory::LimitExceeded, format!("A batch holds at most {MAX_BATCH_QUOTES} quotes.")));
    }
    get(tx, customer_id, batch_id)
}

/// Delete batch (an open one; a booked batch is the record of its bookings).
pub(crate) fn delete(tx: &Tx<'_>, customer_id: &str, batch_id: &str) -> Result<wire::OkResponse> {
    let row = find(tx, customer_id, batch_id)?;
    if row.status == "booked" {
        return Err(Error::conflict(format!("Batch {batch_id} is booked and cannot be deleted.")));
    }
    tx.execute("DELETE FROM batch_quotes WHERE customer_id = ?2 AND batch_id = ?1", args![batch_id, customer_id])?;
    tx.execute("DELETE FROM batches WHERE customer_id = ?2 AND id = ?1", args![batch_id, customer_id])?;
    Ok(wire::OkResponse::OK)
}

/// The booking request for a quoted shipment: the shipment as quoted, the quote's
/// carrier, service and package type, and the quote id (which fixes the price). A single
/// quote without a date or currency was made for the day it was booked and in USD.
fn booking_request(stored: &quoting::StoredQuote, req: &wire::BatchBookRequest, today: NaiveDate) -> Result<wire::BookShipmentRequest> {
    let s = stored.shipment()?;
    let q = &stored.quote;
    Ok(wire::BookShipmentRequest {
        carrier_code: q.carrier_code.clone(),
        service_code: q.service_code.clone(),
        package_type_code: q.package_type_code.clone(),
        shipment_date: s.shipment_date.filter(|d| !d.trim().is_empty()).map_or_else(|| today.to_string(), String::from),
        shipment_reference: s.shipment_reference.map(String::from),
        content_description: s.content_description.map(String::from),
        sender: s.sender,
        receiver: s.receiver,
        residential: s.residential,
        signature_option_code: s.signature_option_code.map(String::from),
        dangerous_goods_code: s.dangerous_goods_code.map(String::from),
        postal_express_am_delivery: s.postal_express_am_delivery,
        saturday_delivery: s.saturday_delivery,
        weight_unit: s.weight_unit.into(),
        dim_unit: s.dim_unit.map(|d| d.map(String::from)),
        currency: s
            .currency
            .filter(|c| !c.trim().is_empty())
            .map_or_else(|| crate::rating::Currency::Usd.as_str().to_string(), String::from),
        label_image_format: req.label_image_format.clone(),
        pieces: s
            .pieces
            .into_iter()
            .map(|p| wire::BookPiece {
                weight: p.weight,
                length: Some(p.length),
                width: Some(p.width),
                height: Some(p.height),
                insurance_amount: Some(p.insurance_amount),
                declared_value: Some(p.declared_value),
            })
            .collect(),
        approve_prepay_recharge: req.approve_prepay_recharge,
        commercial_invoice: s.commercial_invoice,
        billing: s.billing,
        provider_account_id: s.provider_account_id.map(String::from),
        quote_id: Some(wire::Int(q.quote_id)),
        ..wire::BookShipmentRequest::default()
    })
}

/// Refuses a batch whose `labelsPdf` could take more than [`crate::limits::MAX_LABEL_PAGES`]
/// pages, before anything is booked or rendered: a page per piece of each quote's
/// shipment (of the shipment, for a quote booked already and not voided), two where a
/// customs declaration is printed. A quote that cannot be read counts nothing: the
/// booking reports it.
fn check_label_pages(
    conn: &Read<'_>,
    catalog: &Catalog,
    customer_id: &str,
    batch_id: &str,
    quotes: &[(i64, Option<String>)],
) -> Result<()> {
    let country = |c: &Option<compact_str::CompactString>| c.as_deref().unwrap_or_default().trim().to_ascii_uppercase();
    let mut pages = 0usize;
    for (quote_id, booked) in quotes {
        let count = match booked {
            Some(book_number) => {
                let s = shipments::find(conn, customer_id, book_number)?;
                if s.voided {
                    0
                } else {
                    labels::view_label_pages(catalog, &s.view)
                }
            }
            None => quoting::find(conn, customer_id, *quote_id)?
                .and_then(|stored| {
                    let s = stored.shipment().ok()?;
                    Some(labels::label_pages(
                        catalog,
                        &stored.quote.carrier_code,
                        &country(&s.sender.country),
                        &country(&s.receiver.country),
                        s.pieces.len(),
                    ))
                })
                .unwrap_or(0),
        };
        pages = pages.saturating_add(count);
    }
    if pages > crate::limits::MAX_LABEL_PAGES {
        return Err(labels::too_many_pages("batchId", format!("batch {batch_id}'s labels would take {pages} pages")));
    }
    Ok(())
}

/// Batch book: books every quote of the batch not booked yet.
pub(crate) fn book(tx: &Tx<'_>, ctx: &booking::Context, req: &wire::BatchBookRequest) -> Result<wire::BatchBookResponse> {
    let customer_id = ctx.customer.id.as_str();
    let row = find(tx, customer_id, &req.batch_id)?;
    if row.status == "booked" {
        return Err(Error::conflict(format!("Batch {} is already booked.", req.batch_id)));
    }
    let quotes = members(tx, customer_id, &req.batch_id)?;
    if quotes.is_empty() {
        return Err(Error::invalid("batchId", format!("batch {} holds no quotes; add quotes first", req.batch_id)));
    }
    check_label_pages(tx, ctx.catalog, customer_id, &req.batch_id, &quotes)?;
    let mut results = Vec::with_capacity(quotes.len());
    let mut all_booked = true;
    for (quote_id, booked) in quotes {
        if let Some(book_number) = booked {
            results.push(wire::BatchBookResult {
                quote_id,
                status: "success".into(),
                book_number: Some(book_number),
                tracking_number: None,
                zone: None,
                total_shipping_cost: None,
                error: None,
                error_category: None,
                details: None,
            });
            continue;
        }
        tx.batch("SAVEPOINT batch_quote")?;
        let outcome = quoting::find(tx, customer_id, quote_id)?
            .ok_or_else(|| Error::not_found("quote", &quote_id.to_string()))
            .and_then(|stored| booking_request(&stored, req, ctx.today))
            .and_then(|booking_req| booking::book(tx, ctx, &booking_req));
        match outcome {
            Ok(r) => {
                tx.batch("RELEASE batch_quote")?;
                tx.execute(
                    "UPDATE batch_quotes SET book_number = ?3 WHERE customer_id = ?4 AND batch_id = ?1 AND quote_id = ?2",
                    args![req.batch_id, quote_id, r.book_number, customer_id],
                )?;
                results.push(wire::BatchBookResult {
                    quote_id,
                    status: "success".into(),
                    book_number: Some(r.book_number),
                    tracking_number: Some(r.tracking_number),
                    zone: Some(r.zone),
                    total_shipping_cost: Some(r.total_shipping_cost),
                    error: None,
                    error_category: None,
                    details: None,
                });
            }
            Err(e) => {
                tx.roll_back_to("batch_quote")?;
                all_booked = false;
                results.push(wire::BatchBookResult {
                    quote_id,
                    status: "error".into(),
                    book_number: None,
                    tracking_number: None,
                    zone: None,
                    total_shipping_cost: None,
                    error: Some(e.message().to_string()),
                    error_category: Some(e.category().code().to_string()),
                    details: (!e.details().is_empty()).then(|| e.details().to_vec()),
                });
            }
        }
    }
    if all_booked {
        tx.execute("UPDATE batches SET status = 'booked' WHERE customer_id = ?2 AND id = ?1", args![req.batch_id.as_str(), customer_id])?;
    }
    // Each booking has its own events; the batch's tells that this call booked some.
    if results.iter().any(|r| r.tracking_number.is_some()) {
        events::append(tx, customer_id, events::Type::BatchBooked, &req.batch_id, ctx.now, &get(tx, customer_id, &req.batch_id)?)?;
    }
    let balance = ledger::balance_cents(tx, customer_id)?;
    let booked: Vec<&str> = results.iter().filter_map(|r| r.book_number.as_deref()).collect();
    let labels_pdf = labels::labels_pdf(tx, &labels::Books { catalog: ctx.catalog, rates: ctx.rates }, customer_id, &booked)?;
    Ok(wire::BatchBookResponse { batch_id: req.batch_id.clone(), results, prepay_balance: format2(from_cents(balance)), labels_pdf })
}
