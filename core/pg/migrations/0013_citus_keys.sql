-- Schema 13, the twin of core/migrations/0013_citus_keys.sql: every key of a customer's
-- table holds customer_id, and what was unique or looked up across customers moves to
-- lookup tables (e-mails, shipment tracking numbers, return tracking numbers), filled
-- from the rows already there. api_keys, a reference table, loses its foreign key to
-- customers (a reference table cannot reference a distributed one).
CREATE TABLE customer_emails (
    email_key TEXT COLLATE "C" PRIMARY KEY,
    customer_id TEXT COLLATE "C" NOT NULL
);
INSERT INTO customer_emails (email_key, customer_id) SELECT email_key, id FROM customers;
ALTER TABLE customers DROP CONSTRAINT customers_email_key_key;

CREATE TABLE tracking_numbers (
    tracking_number TEXT COLLATE "C" NOT NULL,
    customer_id TEXT COLLATE "C" NOT NULL,
    book_number TEXT COLLATE "C" NOT NULL,
    piece_index BIGINT NOT NULL,
    PRIMARY KEY (tracking_number, customer_id, book_number, piece_index)
);
INSERT INTO tracking_numbers (tracking_number, customer_id, book_number, piece_index)
    SELECT tracking_number, customer_id, book_number, piece_index FROM shipment_pieces;
DROP INDEX shipment_pieces_by_tracking;

CREATE TABLE return_tracking_numbers (
    tracking_number TEXT COLLATE "C" PRIMARY KEY,
    customer_id TEXT COLLATE "C" NOT NULL,
    book_number TEXT COLLATE "C" NOT NULL
);
INSERT INTO return_tracking_numbers (tracking_number, customer_id, book_number)
    SELECT tracking_number, customer_id, book_number FROM return_labels;
ALTER TABLE return_labels DROP CONSTRAINT return_labels_tracking_number_key;

ALTER TABLE search_customers DROP CONSTRAINT search_customers_key_key;

ALTER TABLE api_keys DROP CONSTRAINT api_keys_customer_id_fkey;
