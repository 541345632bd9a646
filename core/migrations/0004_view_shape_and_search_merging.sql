-- Schema 4:
-- - Each shipment records the shape of its stored view (booking::view_shape), so that a
--   search sends views of today's shape as stored. Older views have none.
-- - The search indexes merge their segments when a flush asks, a bounded amount of work
--   each time (search::flush_after), instead of by FTS5's automatic merges, which at
--   times stalled the writing transaction for 20 ms and more.
ALTER TABLE shipments ADD COLUMN view_shape INTEGER;
INSERT INTO shipment_search(shipment_search, rank) VALUES ('automerge', 0);
INSERT INTO shipment_grams(shipment_grams, rank) VALUES ('automerge', 0);
