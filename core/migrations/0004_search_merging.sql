-- Schema 4: the search indexes merge their segments when a flush asks, a bounded amount
-- of work each time (search::flush_after), instead of by FTS5's automatic merges, which
-- at times stalled the writing transaction for 20 ms and more. The tables do not change.
INSERT INTO shipment_search(shipment_search, rank) VALUES ('automerge', 0);
INSERT INTO shipment_grams(shipment_grams, rank) VALUES ('automerge', 0);
