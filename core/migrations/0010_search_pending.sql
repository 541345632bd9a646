-- Schema 10: booked shipments wait to be indexed for search in groups.
--
-- FTS5 writes a new segment at every commit that adds to it, and merges segments as
-- they pile up, so indexing each booking in its own transaction wrote about 12 of a
-- booking's 29 pages and took half of its time. A booking now adds one short row here
-- (the rowid it will have in the indexes, its book number and its search body), and
-- every 64th booking moves the waiting rows into both indexes at once. A search scans
-- the customer's waiting rows first (they are the newest), so a shipment is found from
-- the moment its booking commits, as before.
CREATE TABLE search_pending (
    id INTEGER PRIMARY KEY,                  -- the shipment's rowid in shipment_search
    book_number TEXT NOT NULL,
    body TEXT NOT NULL
);
