-- Schema 11: a booking writes to fewer B-trees.
--
-- Every B-tree a transaction changes is at least one 4 KiB page written to the WAL (two
-- write calls) and later copied into the database: at about 15 pages a booking, that
-- was half of a booking's time. Four B-trees go:
--
-- 1. Shipments waiting to be indexed for search are the newest shipments themselves:
--    each carries its search rowid and text, and `id_sequences` row 'search_indexed'
--    holds the rowid (in `shipments`) of the last one indexed. The `search_pending`
--    table goes. A shipment's search rowid is now numbered by its book number's
--    sequence, which is larger than every per-customer number used before (no customer
--    has more shipments than there are), so it needs no write to `search_customers`;
--    `search_customers.last` is no longer used.
-- 2. `shipment_pieces` is keyed by (book number, piece) without a rowid: one B-tree
--    and its tracking-number index instead of a table, its key index and that index.
-- 3. `tracking_events` is keyed by its duplicate check without a rowid. `id` orders
--    events of the same time, and comes from the sequence 'tracking_event'.
-- 4. `ledger_entries` is keyed by (customer, id) without a rowid: the customer's entries
--    are one range of the table itself. `id` comes from the sequence 'ledger_entry'.

ALTER TABLE shipments ADD COLUMN search_rowid INTEGER;
ALTER TABLE shipments ADD COLUMN search_body TEXT;      -- one field a line, as indexed
UPDATE shipments SET search_rowid = p.id, search_body = p.body FROM search_pending p WHERE p.book_number = shipments.book_number;
INSERT INTO id_sequences (name, last)
    VALUES ('search_indexed', coalesce((SELECT min(rowid) - 1 FROM shipments WHERE search_body IS NOT NULL),
                                       (SELECT max(rowid) FROM shipments), 0))
    ON CONFLICT (name) DO UPDATE SET last = excluded.last;
DROP TABLE search_pending;

CREATE TABLE shipment_pieces_by_book (
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    piece_index INTEGER NOT NULL,
    tracking_number TEXT NOT NULL,
    shipping_cost TEXT NOT NULL,
    PRIMARY KEY (book_number, piece_index)
) WITHOUT ROWID;
INSERT INTO shipment_pieces_by_book (book_number, piece_index, tracking_number, shipping_cost)
    SELECT book_number, piece_index, tracking_number, shipping_cost FROM shipment_pieces;
DROP TABLE shipment_pieces;
ALTER TABLE shipment_pieces_by_book RENAME TO shipment_pieces;
CREATE INDEX shipment_pieces_by_tracking ON shipment_pieces(tracking_number);

CREATE TABLE tracking_events_keyed (
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    tracking_number TEXT NOT NULL,
    event_status TEXT NOT NULL,
    event_time TEXT NOT NULL,                -- YYYY-MM-DD HH:MM:SS
    event TEXT NOT NULL,
    service_area TEXT NOT NULL,
    id INTEGER NOT NULL,                     -- recording order
    carrier TEXT NOT NULL,
    service_area_country TEXT NOT NULL,
    PRIMARY KEY (book_number, tracking_number, event_status, event_time, event, service_area)
) WITHOUT ROWID;
INSERT INTO tracking_events_keyed (book_number, tracking_number, event_status, event_time, event, service_area, id, carrier, service_area_country)
    SELECT book_number, tracking_number, event_status, event_time, event, service_area, id, carrier, service_area_country FROM tracking_events;
INSERT INTO id_sequences (name, last) VALUES ('tracking_event', (SELECT coalesce(max(id), 0) FROM tracking_events))
    ON CONFLICT (name) DO UPDATE SET last = excluded.last;
DROP TABLE tracking_events;
ALTER TABLE tracking_events_keyed RENAME TO tracking_events;

CREATE TABLE ledger_entries_keyed (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('recharge', 'charge', 'refund')),
    amount_cents INTEGER NOT NULL,
    balance_after_cents INTEGER NOT NULL CHECK (balance_after_cents >= 0),
    reference TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
) WITHOUT ROWID;
INSERT INTO ledger_entries_keyed (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
    SELECT customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at FROM ledger_entries;
INSERT INTO id_sequences (name, last) VALUES ('ledger_entry', (SELECT coalesce(max(id), 0) FROM ledger_entries))
    ON CONFLICT (name) DO UPDATE SET last = excluded.last;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_keyed RENAME TO ledger_entries;
CREATE TRIGGER ledger_entries_append_only_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER ledger_entries_append_only_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
