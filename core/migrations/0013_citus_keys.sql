-- Schema 13: every key of a customer's table holds customer_id, so that the tables can
-- be distributed by customer (Citus, docs/ARCHITECTURE.md). What was unique or looked
-- up across customers moves to lookup tables keyed by the global value, each naming the
-- customer it belongs to and written in the same transaction as the customer's row:
-- e-mails (registration and login), shipment tracking numbers (the carrier feed) and
-- return tracking numbers (unique, and scanned by the carrier feed). Tables SQLite
-- cannot change keys of in place are copied with their rows: customers without the
-- UNIQUE on email_key, return_labels without the one on tracking_number,
-- search_customers without the one on key (keys come from a sequence), and api_keys,
-- a reference table, without its foreign key to customers (a reference table cannot
-- reference a distributed one). The upgrade runs with foreign keys off and is checked
-- with foreign_key_check before it commits (store::migrate).
CREATE TABLE customer_emails (
    email_key TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO customer_emails (email_key, customer_id) SELECT email_key, id FROM customers;

CREATE TABLE tracking_numbers (
    tracking_number TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    piece_index INTEGER NOT NULL,
    PRIMARY KEY (tracking_number, customer_id, book_number, piece_index)
) WITHOUT ROWID;
INSERT INTO tracking_numbers (tracking_number, customer_id, book_number, piece_index)
    SELECT tracking_number, customer_id, book_number, piece_index FROM shipment_pieces;
DROP INDEX shipment_pieces_by_tracking;

CREATE TABLE return_tracking_numbers (
    tracking_number TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO return_tracking_numbers (tracking_number, customer_id, book_number)
    SELECT tracking_number, customer_id, book_number FROM return_labels;

CREATE TABLE customers_12 (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    profile_code TEXT NOT NULL,
    franchise_id TEXT,
    mailing_address TEXT NOT NULL,
    billing_address TEXT NOT NULL,
    minimum_balance_cents INTEGER NOT NULL CHECK (minimum_balance_cents >= 0),
    recharge_amount_cents INTEGER NOT NULL CHECK (recharge_amount_cents >= 0),
    sales_rep TEXT,
    utm TEXT,
    monthly_volume TEXT,
    created_at TEXT NOT NULL
);
INSERT INTO customers_12 SELECT id, email, email_key, password_hash, profile_code, franchise_id, mailing_address,
    billing_address, minimum_balance_cents, recharge_amount_cents, sales_rep, utm, monthly_volume, created_at FROM customers;
DROP TABLE customers;
ALTER TABLE customers_12 RENAME TO customers;

CREATE TABLE return_labels_12 (
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    tracking_number TEXT NOT NULL,
    return_to TEXT NOT NULL,
    zone TEXT NOT NULL,
    total_amount TEXT NOT NULL,
    cost_cents INTEGER NOT NULL CHECK (cost_cents >= 0),
    used_at TEXT,
    PRIMARY KEY (customer_id, book_number),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);
INSERT INTO return_labels_12 SELECT customer_id, book_number, tracking_number, return_to, zone, total_amount, cost_cents, used_at
    FROM return_labels;
DROP TABLE return_labels;
ALTER TABLE return_labels_12 RENAME TO return_labels;

CREATE TABLE search_customers_12 (
    customer_id TEXT PRIMARY KEY REFERENCES customers(id),
    key INTEGER NOT NULL
);
INSERT INTO search_customers_12 SELECT customer_id, key FROM search_customers;
DROP TABLE search_customers;
ALTER TABLE search_customers_12 RENAME TO search_customers;

CREATE TABLE api_keys_12 (
    id TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    customer_id TEXT,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
INSERT INTO api_keys_12 SELECT id, digest, customer_id, name, created_at, revoked_at FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_12 RENAME TO api_keys;
