//! Search on PostgreSQL: every booked shipment's searchable text is in its `shipments`
//! row (`search_body`), and four indexes find the rows whose text holds a keyword:
//! `shipments_newest` walks a customer's shipments newest first (holding their book
//! numbers and texts); the trigram GIN index `shipments_search` (`pg_trgm`) narrows down
//! the rows of a keyword of three characters or more, `shipments_short_grams` those of a
//! keyword of one or two (its
//! one- and two-character windows, `consign_short_grams`), and `shipments_digit_grams`
//! those of a keyword holding six digits or more (the six-digit windows of its numbers,
//! `consign_digit_grams`: digits make a thousand trigrams, each in too many texts to
//! narrow anything down). PostgreSQL keeps them up to date as rows are written, so
//! nothing waits to be indexed.
//!
//! A keyword `k` matches as `search_body LIKE '%k%'`, with `%`, `_` and `\` of `k`
//! escaped: exactly SQLite's `instr(search_body, k) > 0`, since `%` stands for any run
//! of characters, line breaks included, and both compare characters exactly (LIKE does
//! under any deterministic collation; the domain lower-cases the text and the keyword,
//! and a keyword holds no line break). The indexes only narrow the rows down;
//! PostgreSQL checks the pattern on each.
//!
//! A search first walks the customer's newest [`NEWEST`] shipments in the first index,
//! and a common keyword on to the newest [`WINDOW`]: a keyword that many of them hold
//! fills its page there, whatever the number of its matches, from the index alone. A
//! rarer keyword goes to the trigram or window indexes, where its few matches are found
//! and sorted; that query is planned for its keyword each time
//! (`Read::rows_planned_each_time`): a generic plan cannot use the keyword's trigrams.

use crate::error::Result;
use crate::store::{args, Read, Tx};

/// The newest shipments of a customer a search reads first: a keyword that fills its
/// page there is answered, and one held by fewer than one in [`COMMON`] of them goes to
/// its index.
const NEWEST: i64 = 1_000;

/// A keyword held by at least one in this many of the newest shipments (a first name, a
/// company) is looked for further in the newest [`WINDOW`]: that fills a page of 100 out
/// of one in a hundred, with no index to read and no matches to sort.
const COMMON: i64 = 100;

/// The newest shipments of a customer a search walks for a common keyword before it asks
/// the keyword's index.
const WINDOW: i64 = 10_000;

/// Book numbers of the customer's shipments whose search text holds `keyword`, newest
/// first (lowest search rowid first), at most `limit`.
pub(crate) fn matching(conn: &Read<'_>, customer_id: &str, keyword: &str, limit: i64) -> Result<Vec<String>> {
    let pattern = contains(keyword);
    let newest = |window: i64| -> Result<Vec<String>> {
        conn.rows(
            "SELECT book_number FROM (
                 SELECT book_number, search_body, search_rowid FROM shipments WHERE customer_id = ?1 ORDER BY search_rowid LIMIT ?4
             ) newest WHERE search_body LIKE ?2 ESCAPE '\\' ORDER BY search_rowid LIMIT ?3",
            args![customer_id, pattern, limit, window],
            |r| r.get(0),
        )
    };
    let found = newest(NEWEST)?;
    if found.len() as i64 >= limit {
        return Ok(found);
    }
    if found.len() as i64 * COMMON >= NEWEST {
        let found = newest(WINDOW)?;
        if found.len() as i64 >= limit {
            return Ok(found);
        }
    }
    // The rows of a rarer keyword are found through its index first (a CTE PostgreSQL
    // does not fold into the query: every customer's rows there, checked for this
    // customer after), never by walking the customer's rows, which reads them all when
    // the keyword is rare.
    if keyword.chars().count() < 3 {
        return conn.rows_planned_each_time(
            "WITH found AS MATERIALIZED (
                 SELECT customer_id, book_number, search_body, search_rowid FROM shipments
                 WHERE consign_short_grams(search_body) @> ARRAY[?2]
             )
             SELECT book_number FROM found WHERE customer_id = ?1 AND search_body LIKE ?3 ESCAPE '\\'
             ORDER BY search_rowid LIMIT ?4",
            args![customer_id, keyword, pattern, limit],
            |r| r.get(0),
        );
    }
    if let Some([a, b, c]) = digit_windows(keyword) {
        return conn.rows_planned_each_time(
            "WITH found AS MATERIALIZED (
                 SELECT customer_id, book_number, search_body, search_rowid FROM shipments
                 WHERE consign_digit_grams(search_body) && ARRAY[?4, ?5, ?6]
             )
             SELECT book_number FROM found WHERE customer_id = ?1 AND search_body LIKE ?2 ESCAPE '\\'
             ORDER BY search_rowid LIMIT ?3",
            args![customer_id, pattern, limit, a, b, c],
            |r| r.get(0),
        );
    }
    conn.rows_planned_each_time(
        "WITH found AS MATERIALIZED (
             SELECT customer_id, book_number, search_rowid FROM shipments WHERE search_body LIKE ?2 ESCAPE '\\'
         )
         SELECT book_number FROM found WHERE customer_id = ?1 ORDER BY search_rowid LIMIT ?3",
        args![customer_id, pattern, limit],
        |r| r.get(0),
    )
}

/// Three six-digit windows in a row of the last run of eight digits or more in
/// `keyword`, the last three: wherever the run is in a text, one of them starts a
/// multiple of three digits into the text's run, so `consign_digit_grams` of a text that
/// holds the keyword holds one of them. The last ones, where the serial part of a number
/// is, are held by the fewest texts.
fn digit_windows(keyword: &str) -> Option<[&str; 3]> {
    let run = keyword.split(|c: char| !c.is_ascii_digit()).rfind(|run| run.len() >= 8)?;
    // ASCII digits: one byte each.
    let window = |from_end: usize| &run[run.len() - from_end..run.len() - from_end + 6];
    Some([window(8), window(7), window(6)])
}

/// Sets the search rowid and text of shipment `book_number` of `customer_id`, stored
/// without them (the search benchmark's bulk loading).
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
pub(crate) fn index(tx: &Tx<'_>, rowid: i64, customer_id: &str, book_number: &str, body: &str) -> Result<()> {
    tx.execute_later(
        "UPDATE shipments SET search_rowid = ?1, search_body = ?2 WHERE customer_id = ?3 AND book_number = ?4",
        args![rowid, body, customer_id, book_number],
    )
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
    use super::{contains, digit_windows};

    #[test]
    fn a_number_is_found_by_its_last_three_six_digit_windows() {
        assert_eq!(digit_windows("12345678"), Some(["123456", "234567", "345678"]));
        assert_eq!(digit_windows("9400105965700000060026"), Some(["000600", "006002", "060026"]));
        assert_eq!(digit_windows("ref 1234567 / 12345678-x"), Some(["123456", "234567", "345678"]));
        assert_eq!(digit_windows("1234567a"), None, "seven digits: the trigrams find it");
        assert_eq!(digit_windows("١٢٣٤٥٦٧٨"), None, "only ASCII digits, as [0-9] in PostgreSQL");
    }

    /// Every place of a number in a longer run of digits puts one of the keyword's three
    /// windows at a multiple of three into that run: one of `consign_digit_grams`.
    #[test]
    fn one_of_the_three_windows_is_indexed_wherever_the_number_is() {
        let run = "31415926535897932384626";
        for len in 8..=run.len() {
            for at in 0..=run.len() - len {
                let windows = digit_windows(&run[at..at + len]).unwrap();
                let indexed: Vec<&str> = (0..=run.len() - 6).step_by(3).map(|i| &run[i..i + 6]).collect();
                assert!(windows.iter().any(|w| indexed.contains(w)), "{} at {at}", &run[at..at + len]);
            }
        }
    }

    #[test]
    fn a_keyword_is_matched_literally() {
        assert_eq!(contains("mira"), "%mira%");
        assert_eq!(contains(r"5%_a\b"), r"%5\%\_a\\b%");
        assert_eq!(contains("é"), "%é%");
    }
}
