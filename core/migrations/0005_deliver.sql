-- Schema 5: shipment search, orders, pickups and manifests (issue 5).

-- Search (4.3): one FTS5 row per shipment, trigram-tokenised so that any substring of
-- three or more characters matches. The rowid is (customer key << 32) | the customer's
-- own booking sequence, so one customer's shipments are one contiguous rowid range,
-- newest last: a search reads only that range, newest first, and stops at 100.
CREATE TABLE search_customers (
    customer_id TEXT PRIMARY KEY REFERENCES customers(id),
    key INTEGER NOT NULL UNIQUE,
    last INTEGER NOT NULL
);
CREATE VIRTUAL TABLE shipment_search USING fts5(book_number UNINDEXED, body, tokenize = 'trigram');
-- Tokens of our own, without positions (each the hex of its bytes): every one- and
-- two-character window of each field (trigrams cannot find keywords that short), and
-- every six-character window that holds a digit and no space (digit trigrams are few
-- and in almost every shipment, so a number is a poor trigram query).
CREATE VIRTUAL TABLE shipment_grams USING fts5(grams, content = '', detail = none);

-- Orders of REST API integrations (4.2), as put, with the status bookings move.
CREATE TABLE orders (
    integration_id TEXT NOT NULL REFERENCES integrations(id),
    order_id TEXT NOT NULL,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    fulfillment_status TEXT NOT NULL CHECK (fulfillment_status IN ('pending', 'fulfilled', 'partial')),
    document TEXT NOT NULL,                  -- JSON: the order as put (shipperReference defaulted)
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (integration_id, order_id)
);

-- Which shipments fulfil which order (a booking's `fulfillment`).
CREATE TABLE order_shipments (
    integration_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    PRIMARY KEY (integration_id, order_id, book_number)
);

CREATE TABLE pickups (
    id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    carrier_code TEXT NOT NULL,
    pickup_date TEXT NOT NULL,
    ready_time TEXT NOT NULL,
    close_time TEXT NOT NULL,
    address TEXT NOT NULL,                   -- JSON of the validated address
    residential INTEGER NOT NULL CHECK (residential IN (0, 1)),
    special_instructions TEXT,
    package_location TEXT,
    cancelled INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1)),
    cancelled_at TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE pickup_shipments (
    pickup_id TEXT NOT NULL REFERENCES pickups(id),
    position INTEGER NOT NULL,
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    PRIMARY KEY (pickup_id, position)
);
CREATE INDEX pickup_shipments_by_shipment ON pickup_shipments(book_number);

CREATE TABLE manifests (
    id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    carrier_code TEXT NOT NULL,
    shipper TEXT NOT NULL,                   -- JSON of the validated address
    document_type TEXT NOT NULL,
    document BLOB NOT NULL,
    created_at TEXT NOT NULL
);

-- A shipment is on at most one manifest.
CREATE TABLE manifest_shipments (
    manifest_id TEXT NOT NULL REFERENCES manifests(id),
    position INTEGER NOT NULL,
    book_number TEXT NOT NULL UNIQUE REFERENCES shipments(book_number),
    PRIMARY KEY (manifest_id, position)
);
