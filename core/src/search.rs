//! Search shipments (4.3): a case-insensitive substring match of one keyword on the
//! fields the spec names, over the customer's own shipments, newest first, at most 100.
//!
//! The index is an FTS5 table with the trigram tokenizer, written in the booking's own
//! transaction. Each shipment is one row whose `body` holds the searchable fields, one per
//! line, lower-cased and ending with a newline. The rowid is `(customer key << 32) |
//! the customer's booking sequence`, so one customer's shipments form one rowid range
//! and a search reads that range backwards (newest first) and stops at 100 matches.
//!
//! Keywords of three characters or more are an FTS phrase query. A trigram index cannot
//! answer shorter keywords directly, so:
//! - two characters: every occurrence of a two-character string in a body is the start
//!   of some indexed trigram (each field ends with a newline, so every character has a
//!   successor). The index's vocabulary lists those trigrams; the search is the OR of
//!   them, still on the index, with the same semantics as a substring scan;
//! - one character (or a two-character keyword with too many trigrams): `instr` over
//!   the same stored text, in the same rowid range, newest first.

use rusqlite::{Connection, OptionalExtension, Transaction};

use crate::error::{Error, Result};
use crate::wire;

/// Most shipments a search returns (spec part 8).
pub const MAX_RESULTS: i64 = 100;
/// Longest keyword accepted, in characters.
const MAX_KEYWORD: usize = 200;
/// Most trigrams a two-character keyword is expanded into before scanning instead.
const MAX_EXPANSION: usize = 400;

/// The searchable text of a shipment: one field per line, lower case, newline-terminated.
pub(crate) fn body(view: &wire::ShipmentView) -> String {
    let mut fields: Vec<&str> = vec![&view.book_number];
    fields.extend(view.tracking_numbers.iter().map(String::as_str));
    if !view.tracking_numbers.contains(&view.tracking_number) {
        fields.push(&view.tracking_number);
    }
    let mut digits = Vec::new();
    for a in [&view.sender, &view.receiver] {
        fields.extend([a.name.as_str(), a.company.as_str(), a.phone.as_str(), a.email.as_str()]);
        digits.push(a.phone.chars().filter(char::is_ascii_digit).collect::<String>());
    }
    fields.extend(digits.iter().map(String::as_str));
    if let Some(f) = &view.fulfillment {
        fields.push(&f.order_id);
    }
    fields.extend([view.order_number.as_str(), view.shipper_reference.as_str(), view.shipper_reference2.as_str()]);
    let mut text = String::new();
    for f in fields.into_iter().map(str::trim).filter(|f| !f.is_empty()) {
        text.push_str(&f.to_lowercase());
        text.push('\n');
    }
    text
}

/// The customer's search key, created on first use.
fn customer_key(tx: &Transaction, customer_id: &str) -> Result<i64> {
    let existing: Option<i64> =
        tx.prepare_cached("SELECT key FROM search_customers WHERE customer_id = ?1")?.query_row([customer_id], |r| r.get(0)).optional()?;
    match existing {
        Some(k) => Ok(k),
        None => {
            let key = crate::store::next_id(tx, "search_customer")?;
            tx.execute("INSERT INTO search_customers (customer_id, key, last) VALUES (?1, ?2, 0)", rusqlite::params![customer_id, key])?;
            Ok(key)
        }
    }
}

/// Adds a booked shipment to the index (in the booking's transaction).
pub(crate) fn index(tx: &Transaction, customer_id: &str, view: &wire::ShipmentView) -> Result<()> {
    let key = customer_key(tx, customer_id)?;
    let seq: i64 = tx
        .prepare_cached("UPDATE search_customers SET last = last + 1 WHERE customer_id = ?1 RETURNING last")?
        .query_row([customer_id], |r| r.get(0))?;
    if !(0..=i64::from(u32::MAX)).contains(&seq) {
        return Err(Error::internal("the customer has more shipments than the search index can number"));
    }
    tx.prepare_cached("INSERT INTO shipment_search (rowid, book_number, body) VALUES (?1, ?2, ?3)")?.execute(rusqlite::params![
        (key << 32) | seq,
        view.book_number,
        body(view)
    ])?;
    Ok(())
}

/// Indexes every shipment already stored (the upgrade to schema 5), oldest first.
pub(crate) fn reindex_all(tx: &Transaction) -> Result<()> {
    let rows: Vec<(String, String)> = {
        let mut stmt = tx.prepare("SELECT customer_id, view FROM shipments ORDER BY created_at, book_number")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
        rows
    };
    for (customer_id, view) in rows {
        let view: wire::ShipmentView =
            serde_json::from_str(&view).map_err(|e| Error::internal(format!("a stored shipment is unreadable: {e}")))?;
        index(tx, &customer_id, &view)?;
    }
    Ok(())
}

/// Checks a keyword: required, not blank, at most 200 characters. Returns it trimmed
/// and lower-cased.
pub(crate) fn keyword(raw: &str) -> Result<String> {
    let k = raw.trim();
    if k.is_empty() {
        return Err(Error::invalid("keyword", "must not be empty"));
    }
    let n = k.chars().count();
    if n > MAX_KEYWORD {
        return Err(Error::invalid("keyword", format!("must be at most {MAX_KEYWORD} characters, found {n}")));
    }
    Ok(k.to_lowercase())
}

/// An FTS5 string literal: the text in double quotes, inner quotes doubled.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Book numbers of the customer's shipments matching `keyword` (already checked by
/// [`keyword`]), newest first, at most [`MAX_RESULTS`].
pub(crate) fn matching(conn: &Connection, customer_id: &str, keyword: &str) -> Result<Vec<String>> {
    let key: Option<i64> =
        conn.prepare_cached("SELECT key FROM search_customers WHERE customer_id = ?1")?.query_row([customer_id], |r| r.get(0)).optional()?;
    let Some(key) = key else { return Ok(Vec::new()) };
    let (lo, hi) = (key << 32, (key << 32) | i64::from(u32::MAX));
    let chars = keyword.chars().count();
    let query = if chars >= 3 {
        Some(quoted(keyword))
    } else if chars == 2 {
        expand(conn, keyword)?
    } else {
        None
    };
    let rows = match query {
        Some(q) if q.is_empty() => Vec::new(),
        Some(q) => conn
            .prepare_cached(
                "SELECT book_number FROM shipment_search WHERE shipment_search MATCH ?1 AND rowid BETWEEN ?2 AND ?3
                 ORDER BY rowid DESC LIMIT ?4",
            )?
            .query_map(rusqlite::params![q, lo, hi, MAX_RESULTS], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?,
        None => conn
            .prepare_cached(
                "SELECT book_number FROM shipment_search WHERE rowid BETWEEN ?2 AND ?3 AND instr(body, ?1) > 0
                 ORDER BY rowid DESC LIMIT ?4",
            )?
            .query_map(rusqlite::params![keyword, lo, hi, MAX_RESULTS], |r| r.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?,
    };
    Ok(rows)
}

/// The OR of every indexed trigram that starts with the two-character `keyword` (an empty
/// query when there is none: nothing matches), or `None` when there are too many and a
/// scan is the better plan.
fn expand(conn: &Connection, keyword: &str) -> Result<Option<String>> {
    let mut upper = keyword.to_string();
    upper.push(char::MAX);
    let mut stmt = conn.prepare_cached("SELECT term FROM shipment_search_terms WHERE term >= ?1 AND term <= ?2 LIMIT ?3")?;
    let terms = stmt
        .query_map(rusqlite::params![keyword, upper, i64::try_from(MAX_EXPANSION + 1).unwrap_or(i64::MAX)], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    let terms: Vec<String> = terms.into_iter().filter(|t| t.starts_with(keyword) && t.chars().count() == 3).collect();
    if terms.len() > MAX_EXPANSION {
        return Ok(None);
    }
    Ok(Some(terms.iter().map(|t| quoted(t)).collect::<Vec<_>>().join(" OR ")))
}

/// Search shipments (4.3) for `customer_id`: the matching shipments as search shows
/// them, newest first.
pub(crate) fn search(conn: &Connection, customer_id: &str, raw_keyword: &str) -> Result<wire::ShipmentsResponse> {
    let keyword = keyword(raw_keyword)?;
    let books = matching(conn, customer_id, &keyword)?;
    let mut stmt = conn.prepare_cached("SELECT view, voided FROM shipments WHERE book_number = ?1 AND customer_id = ?2")?;
    let mut shipments = Vec::with_capacity(books.len());
    for book in books {
        let row: Option<(String, bool)> = stmt.query_row([&book, customer_id], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
        if let Some((view, voided)) = row {
            let mut view: wire::ShipmentView =
                serde_json::from_str(&view).map_err(|e| Error::internal(format!("shipment {book} is unreadable: {e}")))?;
            view.voided = voided;
            shipments.push(view);
        }
    }
    Ok(wire::ShipmentsResponse { shipments })
}
