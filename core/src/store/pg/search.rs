//! Search on PostgreSQL: every booked shipment's searchable text is in its `shipments`
//! row (`search_body`), and a trigram GIN index on `(customer_id, search_body)`
//! (`pg_trgm` with `btree_gin`) finds the rows whose text holds a keyword. PostgreSQL
//! keeps the index up to date as rows are written, so nothing waits to be indexed.
//!
//! A keyword `k` matches as `search_body LIKE '%k%'`, with `%`, `_` and `\` of `k`
//! escaped: exactly SQLite's `instr(search_body, k) > 0`, since `%` stands for any run
//! of characters, line breaks included, and both compare characters exactly (LIKE does
//! under any deterministic collation; the domain lower-cases the text and the keyword,
//! and a keyword holds no line break). The trigram index only narrows the rows down; PostgreSQL checks the
//! pattern on each (a keyword of one or two characters has no trigram, and the index
//! then narrows to the customer alone).
//!
//! The search is planned for its keyword each time it runs (`Read::rows_planned_each_time`):
//! a generic plan cannot use the keyword's trigrams.

use crate::error::Result;
use crate::store::{args, Read, Tx};

/// Book numbers of the customer's shipments whose search text holds `keyword`, newest
/// first (lowest search rowid first), at most `limit`.
pub(crate) fn matching(conn: &Read<'_>, customer_id: &str, keyword: &str, limit: i64) -> Result<Vec<String>> {
    conn.rows_planned_each_time(
        "SELECT book_number FROM shipments WHERE customer_id = ?1 AND search_body LIKE ?2 ESCAPE '\\'
         ORDER BY search_rowid LIMIT ?3",
        args![customer_id, contains(keyword), limit],
        |r| r.get(0),
    )
}

/// Sets the search rowid and text of shipment `book_number` of `customer_id`, stored
/// without them (the search benchmark's bulk loading).
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
pub(crate) fn index(tx: &Tx<'_>, rowid: i64, customer_id: &str, book_number: &str, body: &str) -> Result<()> {
    tx.execute(
        "UPDATE shipments SET search_rowid = ?1, search_body = ?2 WHERE customer_id = ?3 AND book_number = ?4",
        args![rowid, body, customer_id, book_number],
    )?;
    Ok(())
}

/// The LIKE pattern (escape character `\`) that matches any text holding `keyword`.
fn contains(keyword: &str) -> String {
    let mut pattern = String::with_capacity(keyword.len() + 8);
    pattern.push('%');
    for c in keyword.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use super::contains;

    #[test]
    fn a_keyword_is_matched_literally() {
        assert_eq!(contains("mira"), "%mira%");
        assert_eq!(contains(r"5%_a\b"), r"%5\%\_a\\b%");
        assert_eq!(contains("é"), "%é%");
    }
}
