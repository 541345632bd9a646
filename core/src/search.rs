//! Search shipments (4.3): a case-insensitive substring match of one keyword on the
//! fields the spec names, over the customer's own shipments, newest first, at most 100.
//!
//! A booking stores its shipment's searchable text ([`body`]: the fields, one per line,
//! lower-cased and ending with a newline) and its search rowid ([`Entry`]) in its
//! `shipments` row. The rowid is `(customer key << 32) | (2^32 - 1 - the sequence number
//! of its book number)`, so one customer's shipments form one rowid range with the newest
//! first. The index that finds a keyword in the texts is the store's, one per database
//! (`store::search`).

use crate::error::{Error, Result};
use crate::limits::MAX_RESULTS;
use crate::store::{args, Read, Tx};
use crate::wire;

/// Longest keyword accepted, in characters.
const MAX_KEYWORD: usize = 200;

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
pub(crate) fn customer_key(tx: &Tx<'_>, customer_id: &str) -> Result<i64> {
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

/// The search rowid of the customer's shipment whose book number has sequence number
/// `seq`: the customer's key above, and below it the lower the newer, because FTS5
/// reads doclists forward far faster than backward.
fn rowid(tx: &Tx<'_>, customer_id: &str, seq: i64) -> Result<i64> {
    rowid_of(customer_key(tx, customer_id)?, seq)
}

/// [`rowid`] for the customer whose search key is `key`.
fn rowid_of(key: i64, seq: i64) -> Result<i64> {
    if !(0..=i64::from(u32::MAX)).contains(&seq) {
        return Err(Error::internal("there are more shipments than the search index can number"));
    }
    Ok((key << 32) | (i64::from(u32::MAX) - seq))
}

/// What a booking stores in its `shipments` row for search: the shipment's search rowid
/// and its searchable text. The booking then calls `store::search::after_booking`.
pub(crate) struct Entry {
    /// The search rowid: it orders the customer's shipments newest first (on SQLite, the
    /// rowid in the FTS indexes).
    pub rowid: i64,
    /// The searchable text, as [`body`] writes it.
    pub body: String,
}

/// The search entry of a shipment about to be booked (see [`Entry`]); `seq` is the
/// sequence number of its book number.
pub(crate) fn entry(tx: &Tx<'_>, customer_id: &str, seq: i64, view: &wire::ShipmentView) -> Result<Entry> {
    Ok(Entry { rowid: rowid(tx, customer_id, seq)?, body: body(view) })
}

/// Adds a shipment stored without its search entry straight to the index (the search
/// benchmark's bulk loading); `seq` as for [`entry`].
#[cfg_attr(not(feature = "bench"), allow(dead_code, reason = "the bench loader indexes its copies at once"))]
/// `key` is the customer's search key ([`customer_key`]).
pub(crate) fn index_now(tx: &Tx<'_>, customer_id: &str, key: i64, seq: i64, view: &wire::ShipmentView) -> Result<()> {
    crate::store::search::index(tx, rowid_of(key, seq)?, customer_id, &view.book_number, &body(view))
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

/// Book numbers of the customer's shipments matching `keyword` (already checked by
/// [`keyword`]), newest first, at most [`MAX_RESULTS`].
pub(crate) fn matching(conn: &Read<'_>, customer_id: &str, keyword: &str) -> Result<Vec<String>> {
    let key: Option<i64> = conn.row("SELECT key FROM search_customers WHERE customer_id = ?1", args![customer_id], |r| r.get(0))?;
    let Some(key) = key else { return Ok(Vec::new()) };
    let (lo, hi) = (key << 32, (key << 32) | i64::from(u32::MAX));
    crate::store::search::matching(conn, customer_id, keyword, lo, hi, MAX_RESULTS)
}

/// Search shipments (4.3) for `customer_id`: the matching shipments as search shows
/// them, newest first.
pub(crate) fn search(conn: &Read<'_>, customer_id: &str, raw_keyword: &str) -> Result<wire::ShipmentsResponse> {
    let keyword = keyword(raw_keyword)?;
    let books = matching(conn, customer_id, &keyword)?;
    let shipments = crate::store::search::stored(conn, customer_id, &books)?
        .into_iter()
        .map(|s| typed_view(&s.book_number, &s.view, s.voided))
        .collect::<Result<_>>()?;
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
    let mut out = String::with_capacity(16 + books.len() * 2048);
    out.push_str(r#"{"shipments":["#);
    for s in crate::store::search::stored(conn, customer_id, &books)? {
        if !out.ends_with('[') {
            out.push(',');
        }
        match (s.view_shape == Some(shape)).then(|| as_stored(&s.view, s.voided)).flatten() {
            Some(written) => out.push_str(&written),
            None => out.push_str(&wire::to_json(&typed_view(&s.book_number, &s.view, s.voided)?)?),
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
        crate::store::search::after_booking(tx, tx.last_rowid()).unwrap();
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
        assert_eq!(indexed, 300 - 300 % crate::store::search::PENDING_LIMIT);
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
                crate::store::search::flush(&crate::store::Tx::of(&tx)).unwrap();
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
                    crate::store::search::flush(&crate::store::Tx::of(&tx)).unwrap();
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
        crate::store::search::flush(&crate::store::Tx::of(&tx)).unwrap();
        tx.commit().unwrap();
        let indexed: i64 = conn.query_row("SELECT count(*) FROM shipment_search WHERE customer_id = 'C1'", [], |r| r.get(0)).unwrap();
        assert_eq!(indexed, 4);
        assert_eq!(matching(&crate::store::Read::of(&conn), "C1", "mira").unwrap(), newest_first);
        assert_eq!(matching(&crate::store::Read::of(&conn), "C1", "quist").unwrap(), ["1000000004"]);
    }

    #[test]
    fn keywords_are_checked() {
        assert_eq!(keyword("  MiRa ").unwrap(), "mira");
        assert_eq!(keyword("").unwrap_err().details()[0].field, "keyword");
        assert!(keyword(&"x".repeat(201)).is_err());
        for bad in ["a\u{0}bc", "ab\ncd", "a\tb"] {
            assert_eq!(keyword(bad).unwrap_err().details()[0].field, "keyword", "{bad:?}");
        }
    }
}
