-- Schema 7: quoted shipments keyed by their first quote id.
--
-- The first quote id was a UNIQUE column beside a rowid, so each stored shipment went
-- into two B-trees: the table and the index that finds a quote. As the rowid it is one
-- B-tree, and the lookup (the row whose range starts at or below the quote id) reads the
-- table directly. Quote ids are handed out in increasing order, so rows still append.
CREATE TABLE quoted_shipments_by_id (
    first_quote_id INTEGER PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    quote_count INTEGER NOT NULL CHECK (quote_count > 0),
    shipment TEXT NOT NULL,
    quotes TEXT NOT NULL,
    created_at INTEGER NOT NULL,     -- unix seconds
    expires_at INTEGER NOT NULL      -- unix seconds, created_at + 30 days
);
INSERT INTO quoted_shipments_by_id (first_quote_id, customer_id, quote_count, shipment, quotes, created_at, expires_at)
    SELECT first_quote_id, customer_id, quote_count, shipment, quotes, created_at, expires_at FROM quoted_shipments;
DROP TABLE quoted_shipments;
ALTER TABLE quoted_shipments_by_id RENAME TO quoted_shipments;
