//! The search index of booked shipments, per database: the store's side of search
//! shipments (4.3). The domain (`crate::search`) checks keywords, writes each shipment's
//! searchable text and numbers its search rowid; this module finds the customer's
//! shipments whose text holds a keyword ([`matching`]), newest first, and keeps the index
//! that finds them ([`after_booking`], [`flush`], [`index`]).
//!
//! A booking stores its shipment's search rowid and text in its `shipments` row
//! (`search_rowid`, `search_body`). The text holds the searchable fields, one per line,
//! lower-cased and ending with a newline. The rowid is
//! `(customer key << 32) | (2^32 - 1 - the sequence number of its book number)`, so one
//! customer's shipments form one rowid range with the newest first.
//!
//! On PostgreSQL (`store::pg::search`) a trigram GIN index on `search_body` serves the
//! search, and PostgreSQL keeps it up to date itself.
//!
//! On SQLite the index is an FTS5 table with the trigram tokenizer. FTS5 writes a segment
//! per transaction that adds to it (one per booking was half a booking's time), so every
//! 64th booking indexes the waiting shipments together. A search scans the waiting
//! shipments first (the newest, after the `id_sequences` row `search_indexed`), so a
//! shipment is found as soon as it is booked. A search reads the customer's rowid range
//! forwards (FTS5 reads doclists forwards far faster than backwards) and stops at the
//! limit.
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

use super::sql::Conn;
use super::{args, Read, Row, Tx};
use crate::error::{Error, Result};

/// Bookings that wait before they are indexed together (SQLite).
pub(crate) const PENDING_LIMIT: i64 = 64;
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

/// Called by a booking once its `shipments` row (SQLite's rowid `shipment`) is written
/// with its search rowid and text: on SQLite, every [`PENDING_LIMIT`]th booking indexes
/// the waiting shipments together. PostgreSQL keeps its index itself.
pub(crate) fn after_booking(tx: &Tx<'_>, shipment: i64) -> Result<()> {
    match tx.conn() {
        Conn::Lite(_) => {
            let watermark = super::last_id(tx, INDEXED)?;
            if shipment - watermark >= PENDING_LIMIT {
                flush_after(tx, watermark)?;
            }
            Ok(())
        }
        #[cfg(feature = "postgres")]
        Conn::Pg(_) => Ok(()),
    }
}

/// Adds a shipment stored without its search rowid and text (the search benchmark's
/// bulk loading) straight to the index, with search rowid `rowid` and text `body`: on
/// SQLite to the FTS indexes, on PostgreSQL to its `shipments` row.
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
pub(crate) fn index(tx: &Tx<'_>, rowid: i64, customer_id: &str, book_number: &str, body: &str) -> Result<()> {
    match tx.conn() {
        Conn::Lite(_) => insert_indexed(tx, rowid, customer_id, book_number, body),
        #[cfg(feature = "postgres")]
        Conn::Pg(_) => super::pg::search::index(tx, rowid, customer_id, book_number, body),
    }
}

/// Makes the SQLite indexes keep bigger term lists in memory during a bulk load (`true`:
/// fewer, larger segments to merge), or the default again (`false`). Nothing on
/// PostgreSQL.
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
pub(crate) fn bulk_loading(tx: &Tx<'_>, loading: bool) -> Result<()> {
    match tx.conn() {
        Conn::Lite(_) => {
            let size = if loading { 67_108_864 } else { 1_048_576 };
            for table in ["shipment_search", "shipment_grams"] {
                tx.execute(&format!("INSERT INTO {table} ({table}, rank) VALUES ('hashsize', {size})"), &[])?;
            }
            Ok(())
        }
        #[cfg(feature = "postgres")]
        Conn::Pg(_) => Ok(()),
    }
}

fn insert_indexed(tx: &Tx<'_>, rowid: i64, customer_id: &str, book_number: &str, text: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO shipment_search (rowid, customer_id, book_number, body) VALUES (?1, ?2, ?3, ?4)",
        args![rowid, customer_id, book_number, text],
    )?;
    tx.execute("INSERT INTO shipment_grams (rowid, grams) VALUES (?1, ?2)", args![rowid, grams(text)])?;
    Ok(())
}

/// Indexes every waiting shipment (those after the watermark that carry a search rowid),
/// in one go: FTS5 writes a segment per transaction, so a group costs little more than one.
/// They go in in rowid order: FTS5 writes out what it holds whenever a rowid is not
/// above the one before. Shipments stored without a search rowid count as indexed.
/// PostgreSQL's index has nothing waiting.
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
pub(crate) fn flush(tx: &Tx<'_>) -> Result<()> {
    match tx.conn() {
        Conn::Lite(_) => flush_after(tx, super::last_id(tx, INDEXED)?),
        #[cfg(feature = "postgres")]
        Conn::Pg(_) => Ok(()),
    }
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
    // Every shipment up to the newest is now indexed (those without a search rowid were
    // indexed when stored).
    let newest: i64 = tx.one("SELECT coalesce(max(rowid), 0) FROM shipments", args![], |r| r.get(0))?;
    super::set_last_id(tx, INDEXED, newest.max(watermark))?;
    tx.execute("INSERT INTO shipment_search (shipment_search, rank) VALUES ('merge', ?1)", args![MERGE_PAGES])?;
    tx.execute("INSERT INTO shipment_grams (shipment_grams, rank) VALUES ('merge', ?1)", args![MERGE_PAGES])?;
    Ok(())
}

/// An FTS5 string literal: the text in double quotes, inner quotes doubled.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Book numbers of the customer's shipments (`customer_id`, whose search rowids are
/// `lo..=hi`) whose search text holds `keyword` (not empty, without control characters,
/// lower-cased as the text is), newest first, at most `limit`.
#[cfg_attr(not(feature = "postgres"), allow(unused_variables, reason = "SQLite finds the customer's shipments by their rowids"))]
pub(crate) fn matching(conn: &Read<'_>, customer_id: &str, keyword: &str, lo: i64, hi: i64, limit: i64) -> Result<Vec<String>> {
    match conn.conn() {
        Conn::Lite(_) => {
            // Shipments still waiting to be indexed are the customer's newest: they come
            // first, found by a scan of their few rows.
            let watermark = super::last_id(conn, INDEXED)?;
            let mut found: Vec<String> = conn.rows(
                "SELECT book_number FROM shipments WHERE rowid > ?1 AND search_rowid BETWEEN ?2 AND ?3 AND instr(search_body, ?4) > 0
             ORDER BY search_rowid LIMIT ?5",
                args![watermark, lo, hi, keyword, limit],
                |r| r.get(0),
            )?;
            let left = limit - found.len() as i64;
            found.extend(indexed_matching(conn, keyword, lo, hi, left)?);
            Ok(found)
        }
        #[cfg(feature = "postgres")]
        Conn::Pg(_) => super::pg::search::matching(conn, customer_id, keyword, limit),
    }
}

/// A shipment a search found, as stored.
pub(crate) struct Stored {
    /// Its book number.
    pub book_number: String,
    /// Its view (JSON).
    pub view: String,
    /// Whether it is voided.
    pub voided: bool,
    /// The `booking::view_shape` of the build that wrote `view`.
    pub view_shape: Option<i64>,
}

/// The stored shipments `books` of `customer_id`, in that order (a book number that is
/// not the customer's is left out): on SQLite one indexed read each, on PostgreSQL one
/// query for them all (a round trip each was most of a search with 100 results).
pub(crate) fn stored(conn: &Read<'_>, customer_id: &str, books: &[String]) -> Result<Vec<Stored>> {
    let read = |r: &Row<'_>| Ok(Stored { book_number: r.get(0)?, view: r.get(1)?, voided: r.get(2)?, view_shape: r.get(3)? });
    match conn.conn() {
        Conn::Lite(_) => {
            let mut stmt =
                conn.query("SELECT book_number, view, voided, view_shape FROM shipments WHERE book_number = ?1 AND customer_id = ?2")?;
            let mut found = Vec::with_capacity(books.len());
            for book in books {
                found.extend(stmt.row(args![book, customer_id], read)?);
            }
            Ok(found)
        }
        #[cfg(feature = "postgres")]
        Conn::Pg(_) => {
            if books.is_empty() {
                return Ok(Vec::new());
            }
            let placeholders: Vec<String> = (2..books.len() + 2).map(|i| format!("?{i}")).collect();
            let sql = format!(
                "SELECT book_number, view, voided, view_shape FROM shipments WHERE customer_id = ?1 AND book_number IN ({})",
                placeholders.join(", ")
            );
            let mut values: Vec<&dyn super::sql::Arg> = Vec::with_capacity(books.len() + 1);
            values.push(&customer_id);
            values.extend(books.iter().map(|b| b as &dyn super::sql::Arg));
            let mut by_book: std::collections::HashMap<String, Stored> =
                conn.rows(&sql, &values, read)?.into_iter().map(|s| (s.book_number.clone(), s)).collect();
            Ok(books.iter().filter_map(|b| by_book.remove(b)).collect())
        }
    }
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Search key of the customer of the tests.
    const KEY: i64 = 1;

    /// The search rowid of the shipment of sequence number `seq` of the customer of
    /// search key `key`, as the domain numbers it.
    fn rowid(key: i64, seq: i64) -> i64 {
        (key << 32) | (i64::from(u32::MAX) - seq)
    }

    /// The search rowids of the customer of search key `key`.
    fn range(key: i64) -> (i64, i64) {
        (key << 32, (key << 32) | i64::from(u32::MAX))
    }

    /// Stores shipment `seq` of `customer` (search key `key`) with search text `body`:
    /// as a booking does, then letting search index the waiting ones when it is time;
    /// or with `loaded`, as the bench loader does (stored without them, indexed at once).
    fn book(tx: &Tx<'_>, customer: &str, key: i64, seq: i64, body: &str, loaded: bool) -> Result<()> {
        let book_number = format!("{}", 1_000_000_000 + seq);
        let entry = (!loaded).then(|| (rowid(key, seq), body));
        tx.execute(
            "INSERT INTO shipments (book_number, customer_id, carrier_code, service_code, package_type_code, family, tracking_number,
                shipment_date, zone, currency, total_amount, charged_cents, label_format, view, created_at, search_rowid, search_body)
             VALUES (?1, ?2, 'postal', 's', 'p', 'ground', ?3, '2026-11-21', '8', 'USD', '1', 100, 'PDF', '{}', '', ?4, ?5)",
            args![book_number, customer, format!("94001{seq:017}"), entry.map(|e| e.0), entry.map(|e| e.1)],
        )?;
        if loaded {
            index(tx, rowid(key, seq), customer, &book_number, body)
        } else {
            after_booking(tx, tx.last_rowid())
        }
    }

    /// New and upgraded databases leave merging to the flushes; many flushes leave the
    /// indexes merged into a few segments and every shipment found.
    #[test]
    fn the_indexes_merge_when_flushes_ask() {
        let automerge = |conn: &Read<'_>, table: &str| -> i64 {
            conn.one(&format!("SELECT v FROM {table}_config WHERE k = 'automerge'"), &[], |r| r.get(0)).unwrap()
        };
        let mut upgraded = crate::store::testing::with_customer(Some(3));
        crate::store::migrate(&mut upgraded).unwrap();
        let conn = crate::store::testing::with_customer(None);
        for db in [&upgraded, &conn] {
            assert_eq!(automerge(&crate::store::Read::of(db), "shipment_search"), 0);
            assert_eq!(automerge(&crate::store::Read::of(db), "shipment_grams"), 0);
        }
        let bookings = 40 * PENDING_LIMIT;
        for i in 0..bookings {
            let body = format!("{}\n94001{i:017}\nmira {i}\n(212) 555-0100\ninv-1\n", 1_000_000_000 + i);
            book(&crate::store::Tx::of(&conn), "C1", KEY, i, &body, false).unwrap();
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
        let (lo, hi) = range(KEY);
        assert_eq!(matching(&crate::store::Read::of(&conn), "C1", "mira 17", lo, hi, 100).unwrap().len(), expected);
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
    fn a_token_is_the_hex_of_the_utf8_bytes() {
        let chars: Vec<char> = "1Zé".chars().collect();
        assert_eq!(gram_token(&chars), "315ac3a9");
    }

    #[test]
    fn a_keyword_is_looked_up_by_up_to_four_windows() {
        assert_eq!(keyword_grams("12345"), Vec::<String>::new());
        assert_eq!(keyword_grams("abcdefgh").len(), 3);
        assert_eq!(keyword_grams("1234567").len(), 2);
        assert_eq!(keyword_grams("12345678901234567890").len(), MAX_GRAMS);
    }

    /// Shipments of one customer, oldest first: each one's search text, and whether the
    /// bench loader stored it (indexed at once) rather than a booking; and keywords.
    #[derive(Debug, Clone)]
    struct Case {
        shipments: Vec<(String, bool)>,
        keywords: Vec<String>,
    }

    /// Characters of the texts and keywords: LIKE's and FTS5's special characters,
    /// non-ASCII ones, digits and a space.
    const CHARS: &str = "[ab1%_\\\\é日ß\"*. -]";

    /// Search texts of up to 150 shipments (enough for two flushes and the limit of 100)
    /// from a few characters, so that keywords often match, and numbers of the digits 0 to
    /// 2 (PostgreSQL finds those of eight digits or more by their six-digit windows);
    /// keywords of one to twelve characters, picked from the texts or made up.
    fn cases() -> impl Strategy<Value = Case> {
        let text = proptest::string::string_regex(&format!("{CHARS}{{1,12}}")).unwrap();
        let number = proptest::string::string_regex("[012]{6,16}").unwrap();
        let line = prop_oneof![3 => text, 1 => number];
        let body = proptest::collection::vec(line, 1..4)
            .prop_map(|lines| lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect::<String>());
        let shipments = proptest::collection::vec((body, proptest::bool::weighted(0.1)), 0..150);
        let made_up = prop_oneof![
            3 => proptest::string::string_regex(&format!("{CHARS}{{1,8}}")).unwrap(),
            1 => proptest::string::string_regex("[012]{8,10}").unwrap(),
        ];
        let keywords = proptest::collection::vec((any::<usize>(), any::<usize>(), 1..13usize, made_up), 1..12);
        (shipments, keywords).prop_map(|(shipments, picks)| {
            let mut keywords = Vec::new();
            for (which, start, len, made_up) in picks {
                keywords.push(made_up);
                if let Some((body, _)) = shipments.get(which % shipments.len().max(1)) {
                    let chars: Vec<char> = body.chars().collect();
                    let start = start % chars.len().max(1);
                    keywords.push(chars[start..].iter().take(len).take_while(|&&c| c != '\n').collect());
                }
            }
            // as the domain checks them: trimmed, not empty
            let keywords = keywords.iter().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect();
            Case { shipments, keywords }
        })
    }

    /// Stores the shipments of `case` for `customer` (search key `key`); each run of
    /// shipments the bench loader stores ends with a flush, as the loader's does.
    fn load(tx: &Tx<'_>, customer: &str, key: i64, case: &Case) -> Result<()> {
        let mut loading = false;
        for (seq, (body, loaded)) in (1..).zip(&case.shipments) {
            if loading && !loaded {
                flush(tx)?;
            }
            book(tx, customer, key, seq, body, *loaded)?;
            loading = *loaded;
        }
        if loading {
            flush(tx)?;
        }
        Ok(())
    }

    /// Checks that search finds what a scan of the texts finds, newest first, at most 100.
    fn check(conn: &Read<'_>, customer: &str, key: i64, case: &Case, when: &str) -> std::result::Result<(), TestCaseError> {
        let (lo, hi) = range(key);
        for k in &case.keywords {
            let expected: Vec<String> = (case.shipments.iter().enumerate().rev())
                .filter(|(_, (body, _))| body.contains(k.as_str()))
                .map(|(i, _)| format!("{}", 1_000_000_001 + i))
                .take(100)
                .collect();
            let found = matching(conn, customer, k, lo, hi, 100).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(found, expected, "keyword {:?} {}", k, when);
        }
        Ok(())
    }

    /// Search finds exactly the shipments whose text holds the keyword (a substring,
    /// `%`, `_` and `\` as themselves), newest first, on SQLite with shipments waiting
    /// and all indexed, and on PostgreSQL when `CONSIGN_TEST_PG` names a server.
    #[test]
    fn search_is_a_substring_scan_on_every_database() {
        let mut runner =
            proptest::test_runner::TestRunner::new(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() });
        // A runner's copy generates the same cases for PostgreSQL.
        let mut same_cases = runner.clone();
        let sqlite = runner.run(&cases(), |case| {
            let mut conn = crate::store::testing::with_customer(None);
            let tx = conn.transaction().unwrap();
            load(&Tx::of(&tx), "C1", KEY, &case).unwrap();
            tx.commit().unwrap();
            check(&Read::of(&conn), "C1", KEY, &case, "on SQLite, some waiting")?;
            flush(&Tx::of(&conn)).unwrap();
            check(&Read::of(&conn), "C1", KEY, &case, "on SQLite, all indexed")
        });
        if let Err(e) = sqlite {
            panic!("{e}");
        }
        postgres_leg(&mut same_cases);
    }

    #[cfg(not(feature = "postgres"))]
    fn postgres_leg(_: &mut proptest::test_runner::TestRunner) {
        println!("search on PostgreSQL: skipped (built without the postgres feature)");
    }

    /// The same cases on a fresh PostgreSQL database of the server `CONSIGN_TEST_PG`
    /// names (an admin URL), one customer per case, dropped at the end.
    #[cfg(feature = "postgres")]
    fn postgres_leg(runner: &mut proptest::test_runner::TestRunner) {
        let Ok(admin) = std::env::var("CONSIGN_TEST_PG") else {
            println!("search on PostgreSQL: skipped (CONSIGN_TEST_PG is not set)");
            return;
        };
        let scratch = Scratch::create(&admin);
        let db = crate::store::Database::postgres(&scratch.url, 2).unwrap();
        let customers = std::cell::Cell::new(0);
        let result = runner.run(&cases(), |case| {
            customers.set(customers.get() + 1);
            let (key, customer) = (customers.get(), format!("P{}", customers.get()));
            db.write(|tx| {
                tx.execute(
                    "INSERT INTO customers (id, email, email_key, password_hash, profile_code, mailing_address, billing_address,
                        minimum_balance_cents, recharge_amount_cents, created_at) VALUES (?1, ?1, ?1, '', 'Default', '{}', '{}', 0, 0, '')",
                    args![customer],
                )?;
                load(tx, &customer, key, &case)
            })
            .unwrap();
            db.read(|conn| Ok(check(conn, &customer, key, &case, "on PostgreSQL"))).unwrap()
        });
        drop(db);
        if let Err(e) = result {
            panic!("{e}");
        }
    }

    /// A database of its own on the server of an admin URL, dropped on drop.
    #[cfg(feature = "postgres")]
    struct Scratch {
        admin: String,
        name: String,
        url: String,
    }

    #[cfg(feature = "postgres")]
    impl Scratch {
        fn create(admin: &str) -> Scratch {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
            let name = format!("consign_search_{}_{nanos}", std::process::id());
            let mut client = postgres::Client::connect(admin, postgres::NoTls).unwrap();
            client
                .batch_execute(&format!("CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"))
                .unwrap();
            let url = if admin.contains("://") {
                format!("{admin}{}dbname={name}", if admin.contains('?') { '&' } else { '?' })
            } else {
                format!("{admin} dbname={name}")
            };
            Scratch { admin: admin.to_string(), name, url }
        }
    }

    #[cfg(feature = "postgres")]
    impl Drop for Scratch {
        fn drop(&mut self) {
            if let Ok(mut client) = postgres::Client::connect(&self.admin, postgres::NoTls) {
                let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
            }
        }
    }
}
