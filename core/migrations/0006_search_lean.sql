-- Schema 6: the search indexes of schema 5, rebuilt leaner and with every long window.
--
-- Neither index keeps positions (detail = none) or column sizes (columnsize = 0).
-- shipment_search keeps the trigram tokenizer: a search ANDs the trigrams that cover
-- its keyword and checks each candidate's body with instr, so positions were never
-- needed, and without them the index is about a third of the size and a booking
-- writes and merges far less.
-- shipment_grams now holds every six-character window of every field, not only those
-- with a digit: names built of common syllables are as poor a trigram query as numbers.
-- Both are refilled from the stored shipments, under rowids that number each
-- customer's shipments newest first (see core/src/search.rs).
DROP TABLE shipment_search;
DROP TABLE shipment_grams;
DELETE FROM search_customers;
CREATE VIRTUAL TABLE shipment_search USING fts5(book_number UNINDEXED, body, tokenize = 'trigram', detail = none, columnsize = 0);
CREATE VIRTUAL TABLE shipment_grams USING fts5(grams, content = '', detail = none, columnsize = 0);
