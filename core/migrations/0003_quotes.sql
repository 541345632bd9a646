-- Schema 3: quotes. One row per quoted shipment: the request shipment as sent, its
-- quote objects as JSON, and the contiguous range of quote ids they were given.

CREATE TABLE quoted_shipments (
    id INTEGER PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    first_quote_id INTEGER NOT NULL UNIQUE,
    quote_count INTEGER NOT NULL CHECK (quote_count > 0),
    shipment TEXT NOT NULL,
    quotes TEXT NOT NULL,
    created_at INTEGER NOT NULL,     -- unix seconds
    expires_at INTEGER NOT NULL      -- unix seconds, created_at + 30 days
);
