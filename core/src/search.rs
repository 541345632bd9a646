//! Search shipments (4.3): a case-insensitive substring match of one keyword on the
//! fields the spec names, over the customer's own shipments, newest first, at most 100.
//!
//! The index is an FTS5 table with the trigram tokenizer. FTS5 writes a segment per
//! transaction that adds to it (one per booking was half a booking's time), so a booking
//! only stores its shipment's search rowid and text in its `shipments` row, and every
//! 64th booking indexes the waiting shipments together. A search scans the waiting
//! shipments first (the newest, after the `id_sequences` row `search_indexed`), so a
//! shipment is found as soon as it is booked.
//!
//! Each shipment is one row whose `body` holds the searchable fields, one per line,
//! lower-cased and ending with a newline. The rowid is `(customer key << 32) |
//! (2^32 - 1 - the sequence number of its book number)`, so one customer's shipments
//! form one rowid range with the newest first, and a search reads that range forwards
//! (FTS5 reads doclists forwards far faster than backwards) and stops at 100 matches.
//!
//! The trigram index keeps no positions (`detail = none`, about a third of the size and of
//! the writing): a keyword of three to five characters is the AND of the trigrams that
//! cover it, and each candidate is checked with `instr` against the stored body. A second
//! contentless FTS5 table without positions (`shipment_grams`) holds tokens of our own,
//! each the hex of its characters' UTF-8 bytes:
//! - every one- and two-character window of every field: a keyword of one or two
//!   characters (which trigrams cannot find) is one token, found directly;
//! - every six-character window of every field. Trigrams are a poor filter wherever
//!   they are common: there are only 1,000 digit trigrams and every shipment holds dozens
//!   of digits, and names built of common syllables share theirs with thousands of other
//!   names. Six-character windows are rare, so a keyword of six or more characters is
//!   looked up by (up to four of) its windows and each candidate checked with `instr`.
//!
//! Every plan gives exactly the substring match; a unit test compares each with a scan.

use crate::error::{Error, Result};
use crate::limits::MAX_RESULTS;
use crate::store::{args, Read, Tx};
use crate::wire;

/// Longest keyword accepted, in characters.
const MAX_KEYWORD: usize = 200;
/// Bookings that wait before they are indexed together.
const PENDING_LIMIT: i64 = 64;
/// Pages of merging each index does per flush (FTS5's `merge` command). The indexes do
/// not merge on their own (`automerge` 0): FTS5's automatic merges at times took 20 ms
/// and more in one go, a stall of every write behind them. A bounded share per flush
/// keeps each flush short; should merging fall behind, FTS5 still merges a level of 16
/// segments at once (`crisismerge`).
const MERGE_PAGES: i64 = 25;
/// The `id_sequences` row that holds the rowid in `shipments` of the last shipment
/// indexed: the shipments after it wait to be indexed.
const INDEXED: &str = "search_indexed";

/// Length of the long windows of the window index.
const GRAM: usize = 6;
/// Most long windows of a keyword looked up in the window index.
const MAX_GRAMS: usize = 4;

/// Appends a window as one FTS token, the hex of its UTF-8 bytes, to `out`.
fn push_token(out: &mut String, window: &[char]) {
    // Written straight into one buffer: this runs for every window of every field of
    // every booking.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut utf8 = [0u8; 4];
    for c in window {
        for &b in c.encode_utf8(&mut utf8).as_bytes() {
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

/// A window as one FTS token.
fn gram_token(window: &[char]) -> String {
    let mut token = String::with_capacity(window.len() * 2);
    push_token(&mut token, window);
    token
}

/// The tokens of `shipment_grams` for a body (each field on its own line), without
/// repeats, separated by spaces.
fn grams(body: &str) -> String {
    let lines: Vec<Vec<char>> = body.lines().map(|l| l.chars().collect()).collect();
    // One- and two-character windows of ASCII characters, most of the short ones, are
    // marked in bit sets. Every other window is deduplicated by a key that packs its
    // characters (21 bits each, 6 at most, under a marker bit): sorting integers is
    // several times cheaper than sorting slices of characters, and this runs for every
    // booking.
    let mut ones = [0u64; 2];
    let mut twos = [0u64; 128 * 128 / 64];
    let mark = |set: &mut [u64], bit: usize| {
        if let Some(word) = set.get_mut(bit / 64) {
            *word |= 1 << (bit % 64);
        }
    };
    let ascii = |c: char| usize::try_from(u32::from(c)).ok().filter(|&c| c < 128);
    let mut windows: Vec<(u128, &[char])> = Vec::with_capacity(body.len());
    for chars in &lines {
        for w in chars.windows(1).chain(chars.windows(2)).chain(chars.windows(GRAM)) {
            let marked = match *w {
                [a] => ascii(a).map(|a| mark(&mut ones, a)),
                [a, b] => ascii(a).zip(ascii(b)).map(|(a, b)| mark(&mut twos, a * 128 + b)),
                _ => None,
            };
            if marked.is_none() {
                windows.push((window_key(w), w));
            }
        }
    }
    windows.sort_unstable_by_key(|(key, _)| *key);
    windows.dedup_by_key(|(key, _)| *key);
    let mut out = String::with_capacity(windows.len() * 13 + 512);
    let mut token = |w: &[char]| {
        if !out.is_empty() {
            out.push(' ');
        }
        push_token(&mut out, w);
    };
    // (each bit is an ASCII code, or two: they are chars)
    let code = |n: usize| char::from(u8::try_from(n).unwrap_or_default());
    for n in set_bits(&ones) {
        token(&[code(n)]);
    }
    for n in set_bits(&twos) {
        token(&[code(n / 128), code(n % 128)]);
    }
    for (_, w) in windows {
        token(w);
    }
    out
}

/// The numbers of the bits set in `set`, in increasing order.
fn set_bits(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(i, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            let bit = (rest != 0).then(|| i * 64 + rest.trailing_zeros() as usize);
            rest &= rest.wrapping_sub(1);
            bit
        })
    })
}

/// A key that differs for any two windows of at most [`GRAM`] characters: a leading 1
/// bit, then 21 bits per character (so the leading bit's place gives the length).
fn window_key(window: &[char]) -> u128 {
    const _: () = assert!(GRAM * 21 < 128);
    window.iter().fold(1u128, |key, &c| (key << 21) | u128::from(u32::from(c)))
}

/// Up to [`MAX_GRAMS`] long windows of `keyword`, spread over it (first and last
/// included); empty when it is shorter than a window.
fn keyword_grams(keyword: &str) -> Vec<String> {
    let chars: Vec<char> = keyword.chars().collect();
    let windows: Vec<&[char]> = chars.windows(GRAM).collect();
    if windows.len() <= MAX_GRAMS {
        return windows.into_iter().map(gram_token).collect();
    }
    let last = windows.len() - 1;
    let mut picked: Vec<usize> = (0..MAX_GRAMS).map(|i| i * last / (MAX_GRAMS - 1)).collect();
    picked.dedup();
    picked.into_iter().filter_map(|i| windows.get(i).map(|w| gram_token(w))).collect()
}

/// The searchable text of a shipment: one field per line, lower case, newline-terminated.
pub(crate) fn body(view: &wire::ShipmentView) -> String {
    let mut fields: Vec<&str> = vec![&view.book_number];
    fields.extend(view.tracking_numbers.iter().map(String::as_str));
    if !view.tracking_numbers.contains(&view.tracking_number) {
        fields.push(&view.tracking_number);
    }
    fields.extend(view.return_tracking_number.as_deref());
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
fn customer_key(tx: &Tx<'_>, customer_id: &str) -> Result<i64> {
    let existing: Option<i64> = tx.row("SELECT key FROM search_customers WHERE customer_id = ?1", args![customer_id], |r| r.get(0))?;
    match existing {
        Some(k) => Ok(k),
        None => {
            let key = crate::store::next_id(tx, "search_customer")?;
            tx.execute("INSERT INTO search_customers (customer_id, key) VALUES (?1, ?2)", args![customer_id, key])?;
            Ok(key)
        }
    }
}

/// The rowid in the indexes of the customer's shipment whose book number has sequence
/// number `seq`: the customer's key above, and below it the lower the newer, because
/// FTS5 reads doclists forward far faster than backward.
fn rowid(tx: &Tx<'_>, customer_id: &str, seq: i64) -> Result<i64> {
    let key = customer_key(tx, customer_id)?;
    if !(0..=i64::from(u32::MAX)).contains(&seq) {
        return Err(Error::internal("there are more shipments than the search index can number"));
    }
    Ok((key << 32) | (i64::from(u32::MAX) - seq))
}

/// What a booking stores in its `shipments` row for search: the rowid the shipment will
/// have in the indexes and its searchable text. `seq` is the sequence number of its book
/// number. Until it is indexed (see [`after_booking`]), a search finds it by scanning.
pub(crate) struct Entry {
    /// The rowid in `shipment_search` and `shipment_grams`.
    pub rowid: i64,
    /// The searchable text, as [`body`] writes it.
    pub body: String,
}

/// The search entry of a shipment about to be booked (see [`Entry`]).
pub(crate) fn entry(tx: &Tx<'_>, customer_id: &str, seq: i64, view: &wire::ShipmentView) -> Result<Entry> {
    Ok(Entry { rowid: rowid(tx, customer_id, seq)?, body: body(view) })
}

/// Called by a booking once its `shipments` row (rowid `shipment`) is written with its
/// [`Entry`]: every [`PENDING_LIMIT`]th booking indexes the waiting shipments together.
pub(crate) fn after_booking(tx: &Tx<'_>, shipment: i64) -> Result<()> {
    let watermark = crate::store::last_id(tx, INDEXED)?;
    if shipment - watermark >= PENDING_LIMIT {
        flush_after(tx, watermark)?;
    }
    Ok(())
}

/// Adds a shipment straight to the FTS indexes (the search benchmark's bulk loading);
/// `seq` as for [`entry`].
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
pub(crate) fn index_now(tx: &Tx<'_>, customer_id: &str, seq: i64, view: &wire::ShipmentView) -> Result<()> {
    let rowid = rowid(tx, customer_id, seq)?;
    insert_indexed(tx, rowid, customer_id, &view.book_number, &body(view))
}

fn insert_indexed(tx: &Tx<'_>, rowid: i64, customer_id: &str, book_number: &str, text: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO shipment_search (rowid, customer_id, book_number, body) VALUES (?1, ?2, ?3, ?4)",
        args![rowid, customer_id, book_number, text],
    )?;
    tx.execute("INSERT INTO shipment_grams (rowid, grams) VALUES (?1, ?2)", args![rowid, grams(text)])?;
    Ok(())
}

/// Indexes every waiting shipment (those after the watermark that carry an entry), in
/// one go: FTS5 writes a segment per transaction, so a group costs little more than one.
/// They go in in rowid order: FTS5 writes out what it holds whenever a rowid is not
/// above the one before. Shipments stored without an entry count as indexed.
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
pub(crate) fn flush(tx: &Tx<'_>) -> Result<()> {
    flush_after(tx, crate::store::last_id(tx, INDEXED)?)
}

/// [`flush`] when the watermark is known to be `watermark`.
fn flush_after(tx: &Tx<'_>, watermark: i64) -> Result<()> {
    let waiting: Vec<(i64, String, String, String)> = tx.rows(
        "SELECT search_rowid, customer_id, book_number, search_body FROM shipments
             WHERE rowid > ?1 AND search_rowid IS NOT NULL ORDER BY search_rowid",
        args![watermark],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    for (rowid, customer_id, book_number, text) in &waiting {
        insert_indexed(tx, *rowid, customer_id, book_number, text)?;
    }
    // Every shipment up to the newest is now indexed (those without an entry were
    // indexed when stored).
    let newest: i64 = tx.one("SELECT coalesce(max(rowid), 0) FROM shipments", args![], |r| r.get(0))?;
    crate::store::set_last_id(tx, INDEXED, newest.max(watermark))?;
    tx.execute("INSERT INTO shipment_search (shipment_search, rank) VALUES ('merge', ?1)", args![MERGE_PAGES])?;
    tx.execute("INSERT INTO shipment_grams (shipment_grams, rank) VALUES ('merge', ?1)", args![MERGE_PAGES])?;
    Ok(())
}

/// Checks a keyword: required, not blank, no control characters, at most 200
/// characters. Returns it trimmed
/// and lower-cased.
pub(crate) fn keyword(raw: &str) -> Result<String> {
    let k = raw.trim();
    if k.is_empty() {
        return Err(Error::invalid("keyword", "must not be empty"));
    }
    if k.chars().any(char::is_control) {
        return Err(Error::invalid("keyword", "must not contain control characters (line breaks, tabs, NUL)"));
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
pub(crate) fn matching(conn: &Read<'_>, customer_id: &str, keyword: &str) -> Result<Vec<String>> {
    let key: Option<i64> = conn.row("SELECT key FROM search_customers WHERE customer_id = ?1", args![customer_id], |r| r.get(0))?;
    let Some(key) = key else { return Ok(Vec::new()) };
    let (lo, hi) = (key << 32, (key << 32) | i64::from(u32::MAX));
    // Shipments still waiting to be indexed are the customer's newest: they come first,
    // found by a scan of their few rows.
    let watermark = crate::store::last_id(conn, INDEXED)?;
    let mut found: Vec<String> = conn.rows(
        "SELECT book_number FROM shipments WHERE rowid > ?1 AND search_rowid BETWEEN ?2 AND ?3 AND instr(search_body, ?4) > 0
             ORDER BY search_rowid LIMIT ?5",
        args![watermark, lo, hi, keyword, MAX_RESULTS],
        |r| r.get(0),
    )?;
    let left = MAX_RESULTS - found.len() as i64;
    found.extend(indexed_matching(conn, keyword, lo, hi, left)?);
    Ok(found)
}

/// Book numbers of the indexed shipments of rowids `lo..=hi` matching `keyword`, in
/// rowid order (newest first), at most `limit`.
fn indexed_matching(conn: &Read<'_>, keyword: &str, lo: i64, hi: i64, limit: i64) -> Result<Vec<String>> {
    let chars: Vec<char> = keyword.chars().collect();
    if chars.len() <= 2 {
        // A one- or two-character keyword is itself a token of the window index.
        return conn.rows(
            "SELECT s.book_number FROM shipment_grams g JOIN shipment_search s ON s.rowid = g.rowid
                 WHERE shipment_grams MATCH ?1 AND g.rowid BETWEEN ?2 AND ?3 ORDER BY g.rowid LIMIT ?4",
            args![gram_token(&chars), lo, hi, limit],
            |r| r.get(0),
        );
    }
    let mut windows = keyword_grams(keyword);
    if let Some(rare) = rarest_window(conn, &windows, lo, hi)? {
        // One rare window finds few candidates; ANDing the common ones would only step
        // through their long lists.
        windows = vec![rare];
    }
    let sql = if windows.is_empty() {
        // The trigram index has no positions (detail=none: a third of the size, and
        // cheaper to write), so the keyword's trigrams that cover it, ANDed, find the
        // candidates and instr checks each.
        "SELECT book_number FROM shipment_search WHERE shipment_search MATCH ?1 AND rowid BETWEEN ?2 AND ?3
         AND instr(body, ?4) > 0 ORDER BY rowid LIMIT ?5"
    } else {
        // Long windows are rare where trigrams are common (numbers, names built of
        // common syllables): the windows find the candidates, instr checks each.
        "SELECT s.book_number FROM shipment_grams g JOIN shipment_search s ON s.rowid = g.rowid
         WHERE shipment_grams MATCH ?1 AND g.rowid BETWEEN ?2 AND ?3 AND instr(s.body, ?4) > 0
         ORDER BY g.rowid LIMIT ?5"
    };
    let query = if windows.is_empty() {
        let mut picked: Vec<String> = (0..chars.len() - 2).step_by(3).map(|i| chars[i..i + 3].iter().collect()).collect();
        if (chars.len() - 3) % 3 != 0 {
            picked.push(chars[chars.len() - 3..].iter().collect());
        }
        picked.iter().map(|t| quoted(t)).collect::<Vec<_>>().join(" AND ")
    } else {
        windows.join(" AND ")
    };
    conn.rows(sql, args![query, lo, hi, keyword, limit], |r| r.get(0))
}

/// Entries of a window's list that make it common: a window with fewer in the rowid
/// range is looked up alone.
const COMMON: i64 = 64;

/// The window of `windows` with the fewest entries in the rowid range `lo..=hi`, if it
/// has fewer than [`COMMON`]. Tracking numbers are why: their long windows are mostly the
/// carrier's prefix and zeros (`940010`, `000000`), in every shipment, and FTS5 ANDs
/// lists by stepping through each (0.4 ms and growing with the shipments, where the one
/// window holding the serial number finds the shipment alone). Each count stops at
/// [`COMMON`], so a common window costs little to count.
fn rarest_window(conn: &Read<'_>, windows: &[String], lo: i64, hi: i64) -> Result<Option<String>> {
    if windows.len() < 2 {
        return Ok(None);
    }
    let mut count = conn
        .query("SELECT count(*) FROM (SELECT 1 FROM shipment_grams WHERE shipment_grams MATCH ?1 AND rowid BETWEEN ?2 AND ?3 LIMIT ?4)")?;
    let mut rarest: Option<(i64, &String)> = None;
    for window in windows {
        let n: i64 = count.row(args![window, lo, hi, COMMON], |r| r.get(0))?.ok_or_else(|| Error::internal("a count answered no row"))?;
        if n < COMMON && rarest.is_none_or(|(fewest, _)| n < fewest) {
            rarest = Some((n, window));
        }
    }
    Ok(rarest.map(|(_, window)| window.clone()))
}

/// Search shipments (4.3) for `customer_id`: the matching shipments as search shows
/// them, newest first.
pub(crate) fn search(conn: &Read<'_>, customer_id: &str, raw_keyword: &str) -> Result<wire::ShipmentsResponse> {
    let keyword = keyword(raw_keyword)?;
    let books = matching(conn, customer_id, &keyword)?;
    let mut stmt = conn.query("SELECT view, voided FROM shipments WHERE book_number = ?1 AND customer_id = ?2")?;
    let mut shipments = Vec::with_capacity(books.len());
    for book in books {
        let row: Option<(String, bool)> = stmt.row(args![book, customer_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        if let Some((view, voided)) = row {
            shipments.push(typed_view(&book, &view, voided)?);
        }
    }
    Ok(wire::ShipmentsResponse { shipments })
}

/// [`search`]'s answer as JSON. A view stored in today's shape
/// ([`crate::shipments::view_shape`]) is written out as stored, with its `voided` flag:
/// reading 100 views into their type and writing them out again was 70 % of a search
/// with 100 results. A view of an older shape is read and written as [`search`] does.
pub(crate) fn search_json(conn: &Read<'_>, customer_id: &str, raw_keyword: &str) -> Result<String> {
    let keyword = keyword(raw_keyword)?;
    let books = matching(conn, customer_id, &keyword)?;
    let shape = crate::shipments::view_shape();
    let mut stmt = conn.query("SELECT view, voided, view_shape FROM shipments WHERE book_number = ?1 AND customer_id = ?2")?;
    let mut out = String::with_capacity(16 + books.len() * 2048);
    out.push_str(r#"{"shipments":["#);
    for book in books {
        let row: Option<(String, bool, Option<i64>)> = stmt.row(args![book, customer_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        let Some((view, voided, stored_shape)) = row else { continue };
        if !out.ends_with('[') {
            out.push(',');
        }
        match (stored_shape == Some(shape)).then(|| as_stored(&view, voided)).flatten() {
            Some(written) => out.push_str(&written),
            None => out.push_str(&wire::to_json(&typed_view(&book, &view, voided)?)?),
        }
    }
    out.push_str("]}");
    Ok(out)
}

/// The stored view of shipment `book` read into its type, with its `voided` flag.
fn typed_view(book: &str, view: &str, voided: bool) -> Result<wire::ShipmentView> {
    let mut typed =
        crate::shipments::parse_view(view).map_err(|e| Error::internal(format!("shipment {book} is unreadable: {e}")).with_source(e))?;
    typed.voided = voided;
    Ok(typed)
}

/// A stored view (written at booking, `voided` false) as the answer shows it, or `None`
/// when it does not read `"voided":false` (then it goes the typed way). Inside a JSON
/// string a quote is escaped, so the first `"voided":false` is the view's own key.
fn as_stored(view: &str, voided: bool) -> Option<std::borrow::Cow<'_, str>> {
    const NOT_VOIDED: &str = r#""voided":false"#;
    if !view.contains(NOT_VOIDED) {
        return None;
    }
    Some(if voided { view.replacen(NOT_VOIDED, r#""voided":true"#, 1).into() } else { view.into() })
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    fn view(book: &str, name: &str, phone: &str, tracking: &str, reference: &str) -> wire::ShipmentView {
        let address = |name: &str, phone: &str| {
            serde_json::json!({"name": name, "company": "Acme 7 Ltd", "address1": "1 Main St", "address2": "", "city": "Austin",
                "state": "TX", "zip": "78701", "country": "US", "phone": phone, "email": "x@example.com"})
        };
        serde_json::from_value(serde_json::json!({
            "bookNumber": book, "trackingNumber": tracking, "trackingNumbers": [tracking], "voided": false,
            "carrierCode": "postal", "serviceCode": "s", "packageTypeCode": "p", "shipmentDate": "2026-11-21",
            "shipperReference": reference, "shipmentReference": reference, "shipperReference2": "", "contentDescription": "",
            "sender": address("Ann Lee", "215-555-0142"), "receiver": address(name, phone), "residential": false,
            "signatureOptionCode": null, "weightUnit": "lb", "dimUnit": "in", "currency": "USD", "customsCurrency": null,
            "pieces": [], "fulfillment": null, "totalShippingCost": 1, "orderNumber": ""
        }))
        .unwrap()
    }

    fn store() -> Connection {
        store_at(crate::store::SCHEMA_VERSION)
    }

    /// A database at schema `version` with customers C1 and C2.
    fn store_at(version: i64) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        crate::store::configure(&conn).unwrap();
        crate::store::create_at(&conn, version).unwrap();
        for id in ["C1", "C2"] {
            conn.execute(
                "INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                    minimum_balance_cents, recharge_amount_cents, created_at) VALUES (?1, ?1, ?1, '', 'Default', '{}', '{}', 0, 0, '')",
                [id],
            )
            .unwrap();
        }
        conn
    }

    /// Stores a shipment as a booking does, with its search entry, and lets search
    /// index the waiting ones when it is time.
    fn book(tx: &Tx<'_>, customer: &str, v: &wire::ShipmentView) {
        let seq = crate::store::next_id(tx, "book_number").unwrap();
        let entry = entry(tx, customer, seq, v).unwrap();
        tx.execute(
            "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family, tracking_number,
                shipment_date, zone, currency, total_amount, charged_cents, label_format, view, created_at, search_rowid, search_body)
             VALUES (?1, ?2, 'postal', 's', 'p', 'ground', ?3, '2026-11-21', '8', 'USD', '1', 100, 'PDF', '{}', '', ?4, ?5)",
            crate::store::args![v.book_number, customer, v.tracking_number, entry.rowid, entry.body],
        )
        .unwrap();
        after_booking(tx, tx.last_rowid()).unwrap();
    }

    /// Every plan (short keywords, numbers, trigrams) gives exactly the
    /// substring matches, newest first.
    #[test]
    fn every_plan_equals_a_substring_scan() {
        let mut conn = store();
        let names = ["Mira Okafor", "Jonas Berg", "Zq Ito", "Amara Quist", "Bo #1 Kim", "Éloïse Dürr"];
        let tx = conn.transaction().unwrap();
        let mut bodies = Vec::new();
        for i in 0..300u32 {
            let v = view(
                &format!("{}", 1_000_000_000 + i),
                names[(i % 6) as usize],
                &format!("(212) 555-{:04}", (i * 37) % 10_000),
                &format!("94001{:017}", u64::from(i) * 7_919),
                &format!("INV-{}", i % 13),
            );
            let customer = if i % 5 == 0 { "C2" } else { "C1" };
            book(&crate::store::Tx::of(&tx), customer, &v);
            if customer == "C1" {
                bodies.push((v.book_number.clone(), body(&v)));
            }
        }
        // 300 bookings leave 44 waiting (300 = 4 * 64 + 44), spread over both customers
        let indexed: i64 = tx.query_row("SELECT count(*) FROM shipment_search", [], |r| r.get(0)).unwrap();
        assert_eq!(indexed, 300 - 300 % PENDING_LIMIT);
        tx.commit().unwrap();
        bodies.reverse();
        let mut keywords: Vec<String> = [
            "a",
            "é",
            "zq",
            "ki",
            "#",
            "#1",
            "qx",
            "55",
            "555-0",
            "inv-1",
            "2125550",
            "9400100000000",
            "okafor",
            "dürr",
            "ra ok",
            "mira okafor",
            "éloïse",
            "berg",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for (i, (_, b)) in bodies.iter().enumerate().step_by(17) {
            let chars: Vec<char> = b.chars().collect();
            for len in [2, 3, 6, 9, 14] {
                let start = (i * 7) % chars.len().saturating_sub(len).max(1);
                let k: String = chars[start..(start + len).min(chars.len())].iter().collect();
                if !k.contains('\n') && !k.trim().is_empty() {
                    keywords.push(k.trim().to_string());
                }
            }
        }
        // the same answers with some shipments waiting and with all of them indexed
        for flushed in [false, true] {
            if flushed {
                let tx = conn.transaction().unwrap();
                flush(&crate::store::Tx::of(&tx)).unwrap();
                tx.commit().unwrap();
            }
            for k in &keywords {
                let expected: Vec<String> = bodies.iter().filter(|(_, b)| b.contains(k)).map(|(bn, _)| bn.clone()).take(100).collect();
                assert_eq!(matching(&crate::store::Read::of(&conn), "C1", k).unwrap(), expected, "keyword {k:?}, flushed: {flushed}");
            }
            assert!(matching(&crate::store::Read::of(&conn), "C3", "mira").unwrap().is_empty());
        }
    }

    /// A database of the baseline schema with shipments indexed and waiting keeps
    /// finding them after an upgrade, newest first; a new booking comes before them, and
    /// indexing them all keeps that order.
    #[test]
    fn the_upgrade_keeps_indexed_and_waiting_shipments_and_the_order() {
        let mut conn = store_at(1);
        {
            let tx = conn.transaction().unwrap();
            for (i, name) in (1..).zip(["Mira Okafor", "Mira Berg", "Mira Ito"]) {
                book(
                    &crate::store::Tx::of(&tx),
                    "C1",
                    &view(&format!("100000000{i}"), name, "(212) 555-0100", &format!("940010000000000000000{i}"), "INV-1"),
                );
                if i == 2 {
                    flush(&crate::store::Tx::of(&tx)).unwrap();
                }
            }
            tx.commit().unwrap();
        }
        crate::store::migrate(&mut conn).unwrap();
        assert_eq!(matching(&crate::store::Read::of(&conn), "C1", "mira").unwrap(), ["1000000003", "1000000002", "1000000001"]);
        let tx = conn.transaction().unwrap();
        book(&crate::store::Tx::of(&tx), "C1", &view("1000000004", "Mira Quist", "(212) 555-0100", "9400100000000000000004", "INV-1"));
        let newest_first = ["1000000004", "1000000003", "1000000002", "1000000001"];
        assert_eq!(matching(&crate::store::Read::of(&tx), "C1", "mira").unwrap(), newest_first);
        flush(&crate::store::Tx::of(&tx)).unwrap();
        tx.commit().unwrap();
        let indexed: i64 = conn.query_row("SELECT count(*) FROM shipment_search WHERE customer_id = 'C1'", [], |r| r.get(0)).unwrap();
        assert_eq!(indexed, 4);
        assert_eq!(matching(&crate::store::Read::of(&conn), "C1", "mira").unwrap(), newest_first);
        assert_eq!(matching(&crate::store::Read::of(&conn), "C1", "quist").unwrap(), ["1000000004"]);
    }

    /// New and upgraded databases leave merging to the flushes; many flushes leave the
    /// indexes merged into a few segments and every shipment found.
    #[test]
    fn the_indexes_merge_when_flushes_ask() {
        let automerge = |conn: &Read<'_>, table: &str| -> i64 {
            conn.one(&format!("SELECT v FROM {table}_config WHERE k = 'automerge'"), &[], |r| r.get(0)).unwrap()
        };
        let mut upgraded = store_at(3);
        crate::store::migrate(&mut upgraded).unwrap();
        let conn = store();
        for db in [&upgraded, &conn] {
            assert_eq!(automerge(&crate::store::Read::of(db), "shipment_search"), 0);
            assert_eq!(automerge(&crate::store::Read::of(db), "shipment_grams"), 0);
        }
        let bookings = 40 * PENDING_LIMIT;
        for i in 0..bookings {
            book(
                &crate::store::Tx::of(&conn),
                "C1",
                &view(&format!("{}", 1_000_000_000 + i), &format!("Mira {i}"), "(212) 555-0100", &format!("94001{i:017}"), "INV-1"),
            );
        }
        // The segments of each index: the structure record (FTS5's id 10) starts with a
        // 4-byte cookie, then the number of levels and of segments as varints.
        let segments = |table: &str| -> u8 {
            let structure: Vec<u8> = conn.query_row(&format!("SELECT block FROM {table}_data WHERE id = 10"), [], |r| r.get(0)).unwrap();
            assert!(structure[4] < 0x80 && structure[5] < 0x80, "small counts are one byte each");
            structure[5]
        };
        // 40 flushes wrote 40 segments to each index; without merging they would all be there.
        assert!(segments("shipment_search") < 16, "{} segments", segments("shipment_search"));
        assert!(segments("shipment_grams") < 16, "{} segments", segments("shipment_grams"));
        let expected = (0..bookings).filter(|i| format!("mira {i}").contains("mira 17")).count().min(100);
        assert_eq!(matching(&crate::store::Read::of(&conn), "C1", "mira 17").unwrap().len(), expected);
    }

    /// The window index holds every one- and two-character window and every six-character
    /// window of each line, once each.
    #[test]
    fn grams_are_every_window_of_each_line_once() {
        let body = "bo kim\n1000000001\néloïse dürr\n";
        let mut expected = std::collections::BTreeSet::new();
        for line in body.lines() {
            let chars: Vec<char> = line.chars().collect();
            for w in chars.windows(1).chain(chars.windows(2)).chain(chars.windows(GRAM)) {
                expected.insert(gram_token(w));
            }
        }
        let text = grams(body);
        let tokens: Vec<&str> = text.split(' ').collect();
        let unique: std::collections::BTreeSet<String> = tokens.iter().map(|t| t.to_string()).collect();
        assert_eq!(tokens.len(), unique.len(), "no token twice");
        assert_eq!(unique, expected);
        assert!(unique.contains(&gram_token(&['é'])) && unique.contains(&gram_token(&"000000".chars().collect::<Vec<_>>())));
    }

    #[test]
    fn keywords_are_checked() {
        assert_eq!(keyword("  MiRa ").unwrap(), "mira");
        assert_eq!(keyword("").unwrap_err().details()[0].field, "keyword");
        assert!(keyword(&"x".repeat(201)).is_err());
        for bad in ["a\u{0}bc", "ab\ncd", "a\tb"] {
            assert_eq!(keyword(bad).unwrap_err().details()[0].field, "keyword", "{bad:?}");
        }
        assert_eq!(keyword_grams("12345"), Vec::<String>::new());
        assert_eq!(keyword_grams("abcdefgh").len(), 3);
        assert_eq!(keyword_grams("1234567").len(), 2);
        assert_eq!(keyword_grams("12345678901234567890").len(), MAX_GRAMS);
    }
}

#[cfg(test)]
mod gram_token_tests {
    use super::gram_token;

    #[test]
    fn a_token_is_the_hex_of_the_utf8_bytes() {
        let chars: Vec<char> = "1Zé".chars().collect();
        assert_eq!(gram_token(&chars), "315ac3a9");
    }
}
