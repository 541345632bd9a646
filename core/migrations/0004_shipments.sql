-- Schema 4: booked shipments, their pieces and labels, tracking events, idempotency
-- records and batches.

CREATE TABLE shipments (
    book_number TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    carrier_code TEXT NOT NULL,
    service_code TEXT NOT NULL,
    package_type_code TEXT NOT NULL,
    family TEXT NOT NULL,                    -- ground or express: the carrier D pickup rule
    tracking_number TEXT NOT NULL,
    shipment_date TEXT NOT NULL,
    zone TEXT NOT NULL,
    currency TEXT NOT NULL,
    total_amount TEXT NOT NULL,              -- in currency
    charged_cents INTEGER NOT NULL,          -- USD taken from the prepay balance (0 when billed elsewhere)
    label_format TEXT NOT NULL,
    quote_id INTEGER,
    voided INTEGER NOT NULL DEFAULT 0 CHECK (voided IN (0, 1)),
    voided_at TEXT,
    view TEXT NOT NULL,                      -- JSON: the shipment as search and retrieve show it
    created_at TEXT NOT NULL
);
CREATE INDEX shipments_by_customer ON shipments(customer_id, book_number);
CREATE INDEX shipments_by_quote ON shipments(quote_id) WHERE quote_id IS NOT NULL;

CREATE TABLE shipment_pieces (
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    piece_index INTEGER NOT NULL,
    tracking_number TEXT NOT NULL,
    shipping_cost TEXT NOT NULL,
    PRIMARY KEY (book_number, piece_index)
);
CREATE INDEX shipment_pieces_by_tracking ON shipment_pieces(tracking_number);

CREATE TABLE labels (
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    piece_index INTEGER NOT NULL,
    format TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (book_number, piece_index, format)
);

CREATE TABLE tracking_events (
    id INTEGER PRIMARY KEY,
    book_number TEXT NOT NULL REFERENCES shipments(book_number),
    tracking_number TEXT NOT NULL,
    carrier TEXT NOT NULL,
    event TEXT NOT NULL,
    event_status TEXT NOT NULL,
    event_time TEXT NOT NULL,                -- YYYY-MM-DD HH:MM:SS
    service_area TEXT NOT NULL,
    service_area_country TEXT NOT NULL,
    UNIQUE (tracking_number, event_status, event_time, event, service_area)
);
CREATE INDEX tracking_events_by_shipment ON tracking_events(book_number, event_time);

CREATE TABLE idempotency_keys (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    key TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, key)
);

CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'booked')),
    created_at TEXT NOT NULL
);
CREATE INDEX batches_by_customer ON batches(customer_id, id);

CREATE TABLE batch_quotes (
    batch_id TEXT NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    quote_id INTEGER NOT NULL,
    book_number TEXT REFERENCES shipments(book_number),
    PRIMARY KEY (batch_id, quote_id)
);
