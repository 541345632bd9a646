-- The current schema, in full: a new database is created from this file in one
-- transaction. Change it only together with a new numbered file in core/migrations/
-- that brings a database of the previous version to the same tables; a test compares
-- the two (store::tests::upgrades_end_at_the_current_schema).
--
-- Every table that holds a customer's data has customer_id as the leading column of
-- its primary key, and its child tables reference their parent by (customer_id, key):
-- one customer's rows are one key range of each table, so customers can be moved
-- between databases without rewriting keys. Global tables (id_sequences, catalog, the
-- rate_* tables) hold no customer's data. What is unique or found across customers (an
-- e-mail, a tracking number, an API key) is a row of a lookup table keyed by that value
-- and naming its customer, written in the same transaction as the customer's row. The
-- test store::tenancy checks these rules; docs/ARCHITECTURE.md says how the tables are
-- distributed on Citus.

-- consign's mark in the file header, the ASCII bytes "CSGN" (store::APPLICATION_ID):
-- consign refuses SQLite files that carry another.
PRAGMA application_id = 1129531214;

CREATE TABLE id_sequences (
    name TEXT PRIMARY KEY,
    last INTEGER NOT NULL
);

-- The catalog (carriers, services, package types, profiles) as one JSON document,
-- seeded from the embedded default on first open and replaced whole by an import.
CREATE TABLE catalog (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    document TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- The rate data (docs/rate-cards.md): every value as the canonical text of the CSV
-- format, so that export reproduces an imported file. Seeded on first open.
CREATE TABLE rate_carrier (
    carrier TEXT PRIMARY KEY NOT NULL,
    currency TEXT NOT NULL,
    weight_unit TEXT NOT NULL,
    weight_step TEXT NOT NULL,
    dim_unit TEXT NOT NULL,
    dim_divisor TEXT NOT NULL,
    dim_min_volume TEXT NOT NULL
);
CREATE TABLE rate_exchange (
    currency TEXT PRIMARY KEY NOT NULL,
    per_usd TEXT NOT NULL
);
CREATE TABLE rate_zone (
    id INTEGER PRIMARY KEY,
    chart TEXT NOT NULL,
    basis TEXT NOT NULL,
    country TEXT NOT NULL,
    zone TEXT NOT NULL,
    UNIQUE (chart, country)
);
CREATE TABLE rate_price (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    package_type TEXT NOT NULL,
    chart TEXT NOT NULL,
    zone TEXT NOT NULL,
    weight TEXT NOT NULL,
    price TEXT NOT NULL,
    UNIQUE (carrier, service, package_type, zone, weight)
);
CREATE TABLE rate_surcharge (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    amount TEXT NOT NULL,
    UNIQUE (carrier, service, kind, key)
);
CREATE TABLE rate_transit (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    zone TEXT NOT NULL,
    days TEXT NOT NULL,
    guaranteed TEXT NOT NULL,
    UNIQUE (carrier, service, zone)
);
CREATE TABLE rate_calendar (
    id INTEGER PRIMARY KEY,
    carrier TEXT NOT NULL,
    service TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    UNIQUE (carrier, service, key, value)
);

-- A customer's key is its own id. Its e-mail is unique across customers through the
-- lookup table customer_emails.
CREATE TABLE customers (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL,                 -- lower-cased e-mail: logins are case-insensitive
    password_hash TEXT NOT NULL,             -- argon2id PHC string, never the password
    profile_code TEXT NOT NULL,
    franchise_id TEXT,
    mailing_address TEXT NOT NULL,           -- JSON of the validated address
    billing_address TEXT NOT NULL,
    minimum_balance_cents INTEGER NOT NULL CHECK (minimum_balance_cents >= 0),
    recharge_amount_cents INTEGER NOT NULL CHECK (recharge_amount_cents >= 0),
    sales_rep TEXT,
    utm TEXT,
    monthly_volume TEXT,
    created_at TEXT NOT NULL
);

-- Append-only: rows are inserted, never updated or deleted. Money in cents. `id` comes
-- from the sequence 'ledger_entry'; without a rowid, a customer's entries are one
-- range of the table itself. A balance below zero is a debt: only a carrier's charge
-- makes one (ledger.rs).
CREATE TABLE ledger_entries (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('recharge', 'charge', 'refund')),
    amount_cents INTEGER NOT NULL,
    balance_after_cents INTEGER NOT NULL,
    reference TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
) WITHOUT ROWID;
CREATE TRIGGER ledger_entries_append_only_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER ledger_entries_append_only_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;

CREATE TABLE payment_methods (
    customer_id TEXT PRIMARY KEY REFERENCES customers(id),
    token TEXT NOT NULL,
    billing_address TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE provider_accounts (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id TEXT NOT NULL,
    provider_code TEXT NOT NULL,
    account_number TEXT NOT NULL,
    fields TEXT NOT NULL,                    -- JSON object of the carrier's fields
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id),
    UNIQUE (customer_id, provider_code, account_number)
);

CREATE TABLE integrations (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
);

CREATE TABLE quoting_options (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    carrier_code TEXT NOT NULL,
    service_code TEXT NOT NULL,
    package_type_code TEXT NOT NULL,
    PRIMARY KEY (customer_id, position)
);

-- One row per quoted shipment: the shipment and its quotes, packed (core/src/packed.rs)
-- or as JSON text (a shipment the packed form does not hold), and the contiguous range
-- of quote ids they were given. A quote is found as the customer's row whose range
-- starts at or below its id. The table keeps its rowid: rows of a batch append to it
-- (SQLite appends to a rowid table without rebalancing, and rows with every service's
-- quotes outgrow the cells of a table without rowid), and the key is a small index.
CREATE TABLE quoted_shipments (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    first_quote_id INTEGER NOT NULL,
    quote_count INTEGER NOT NULL CHECK (quote_count > 0),
    shipment TEXT NOT NULL,                  -- a BLOB when packed
    quotes TEXT NOT NULL,                    -- a BLOB: packed
    created_at INTEGER NOT NULL,             -- unix seconds
    expires_at INTEGER NOT NULL,             -- unix seconds, created_at + 30 days
    PRIMARY KEY (customer_id, first_quote_id)
);

-- The quoted shipments each customer stored on its last day of quoting (UTC), checked
-- against the cap of quoted shipments per day (core/src/quoting.rs). One row per
-- customer, replaced when a new day starts.
CREATE TABLE quote_days (
    customer_id TEXT PRIMARY KEY REFERENCES customers(id),
    day TEXT NOT NULL,                       -- YYYY-MM-DD, UTC
    shipments INTEGER NOT NULL
) WITHOUT ROWID;

-- Booked shipments. The rowid orders them by booking: search indexes the shipments
-- after the `id_sequences` row 'search_indexed' (core/src/store/search.rs).
CREATE TABLE shipments (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    book_number TEXT NOT NULL,
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
    created_at TEXT NOT NULL,
    search_rowid INTEGER,                    -- its rowid in shipment_search and shipment_grams
    search_body TEXT,                        -- its searchable fields, one a line, as indexed
    -- The booking's first tracking event (Info Received at the sender), read from here
    -- instead of stored in tracking_events: the time and place are all it adds.
    booked_event_time TEXT,                  -- YYYY-MM-DD HH:MM:SS
    booked_event_area TEXT,                  -- the sender's city, and state if any
    booked_event_country TEXT,
    view_shape INTEGER,                      -- booking::view_shape of the build that wrote `view`
    PRIMARY KEY (customer_id, book_number)
);
CREATE INDEX shipments_by_quote ON shipments(customer_id, quote_id) WHERE quote_id IS NOT NULL;

-- Without a rowid: one B-tree. The carrier feed finds a tracking number through the
-- lookup table tracking_numbers.
CREATE TABLE shipment_pieces (
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    piece_index INTEGER NOT NULL,
    tracking_number TEXT NOT NULL,
    shipping_cost TEXT NOT NULL,
    PRIMARY KEY (customer_id, book_number, piece_index),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
) WITHOUT ROWID;

-- The commercial invoice of a booking that carries `commercialInvoice` (4.5): what it
-- prints (documents::InvoiceData as JSON), whether it was to be sent electronically, and
-- the PDF when rendered at booking (NULL with lazy labels: rendered on retrieval).
CREATE TABLE commercial_invoices (
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    send_electronically INTEGER NOT NULL CHECK (send_electronically IN (0, 1)),
    data TEXT NOT NULL,
    pdf BLOB,
    PRIMARY KEY (customer_id, book_number),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);

-- The scan-based return label of a carrier B booking (4.5): its own tracking number, the
-- address it goes back to (wire::ViewAddress as JSON), its price on the reversed route
-- fixed at booking (in the shipment's currency, and USD cents as the ledger charges it),
-- and when its first scan charged it (NULL while unused). Its tracking number is unique
-- across customers through the lookup table return_tracking_numbers.
CREATE TABLE return_labels (
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

CREATE TABLE labels (
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    piece_index INTEGER NOT NULL,
    format TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (customer_id, book_number, piece_index, format),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);

-- Keyed by the duplicate check, without a rowid: an event's tracking number is always
-- one of its shipment's, so the check may begin with the shipment, and book numbers
-- only grow, so a customer's new events go to the end of its range. `id` orders events
-- of the same time and comes from the sequence 'tracking_event'.
CREATE TABLE tracking_events (
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    tracking_number TEXT NOT NULL,
    event_status TEXT NOT NULL,
    event_time TEXT NOT NULL,                -- YYYY-MM-DD HH:MM:SS
    event TEXT NOT NULL,
    service_area TEXT NOT NULL,
    id INTEGER NOT NULL,                     -- recording order
    carrier TEXT NOT NULL,
    service_area_country TEXT NOT NULL,
    PRIMARY KEY (customer_id, book_number, tracking_number, event_status, event_time, event, service_area),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
) WITHOUT ROWID;

CREATE TABLE idempotency_keys (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    key TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, key)
);

CREATE TABLE batches (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'booked')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
);

CREATE TABLE batch_quotes (
    customer_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    quote_id INTEGER NOT NULL,
    book_number TEXT,
    PRIMARY KEY (customer_id, batch_id, quote_id),
    FOREIGN KEY (customer_id, batch_id) REFERENCES batches(customer_id, id) ON DELETE CASCADE,
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);

-- Search (4.3, core/src/store/search.rs). FTS5 tables have no primary key of their own: a
-- shipment's rowid is (its customer's key << 32) | (2^32 - 1 - its book number's
-- sequence), so each customer's shipments are one rowid range, newest first. Keys come
-- from the sequence 'search_customer', so no two customers share one.
CREATE TABLE search_customers (
    customer_id TEXT PRIMARY KEY REFERENCES customers(id),
    key INTEGER NOT NULL
);
-- Trigrams without positions or column sizes: a keyword is the AND of the trigrams that
-- cover it, and each candidate's body is checked with instr.
CREATE VIRTUAL TABLE shipment_search USING fts5(
    customer_id UNINDEXED, book_number UNINDEXED, body, tokenize = 'trigram', detail = none, columnsize = 0
);
-- Tokens of our own, each the hex of its bytes: every one- and two-character window of
-- each field (trigrams cannot find keywords that short) and every six-character window
-- (rare where trigrams are common, as in numbers and names of common syllables).
CREATE VIRTUAL TABLE shipment_grams USING fts5(grams, content = '', detail = none, columnsize = 0);
-- Both merge their segments when a flush asks, a bounded amount of work each time
-- (store::search::flush_after), not by FTS5's automatic merges, which at times stalled the
-- writing transaction for 20 ms and more.
INSERT INTO shipment_search(shipment_search, rank) VALUES ('automerge', 0);
INSERT INTO shipment_grams(shipment_grams, rank) VALUES ('automerge', 0);

-- Orders of REST API integrations (4.2), as put, with the status bookings move.
CREATE TABLE orders (
    customer_id TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    fulfillment_status TEXT NOT NULL CHECK (fulfillment_status IN ('pending', 'fulfilled', 'partial')),
    document TEXT NOT NULL,                  -- JSON: the order as put (shipperReference defaulted)
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, integration_id, order_id),
    FOREIGN KEY (customer_id, integration_id) REFERENCES integrations(customer_id, id)
);

-- Which shipments fulfil which order (a booking's `fulfillment`).
CREATE TABLE order_shipments (
    customer_id TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    order_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    PRIMARY KEY (customer_id, integration_id, order_id, book_number),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);

CREATE TABLE pickups (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id TEXT NOT NULL,
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
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
);

CREATE TABLE pickup_shipments (
    customer_id TEXT NOT NULL,
    pickup_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    book_number TEXT NOT NULL,
    PRIMARY KEY (customer_id, pickup_id, position),
    FOREIGN KEY (customer_id, pickup_id) REFERENCES pickups(customer_id, id),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);
CREATE INDEX pickup_shipments_by_shipment ON pickup_shipments(customer_id, book_number);

CREATE TABLE manifests (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id TEXT NOT NULL,
    carrier_code TEXT NOT NULL,
    shipper TEXT NOT NULL,                   -- JSON of the validated address
    document_type TEXT NOT NULL,
    document BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
);

-- A shipment is on at most one manifest.
CREATE TABLE manifest_shipments (
    customer_id TEXT NOT NULL,
    manifest_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    book_number TEXT NOT NULL,
    PRIMARY KEY (customer_id, manifest_id, position),
    UNIQUE (customer_id, book_number),
    FOREIGN KEY (customer_id, manifest_id) REFERENCES manifests(customer_id, id),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);

-- API keys of the HTTP interface (`consign serve`, DECISIONS 9): global, like the
-- catalog, since a partner key acts for several customers. A key is stored only as the
-- SHA-256 digest of its secret; `customer_id` is set for a key that acts for that
-- customer alone, NULL for a partner key (without a foreign key: a reference table
-- cannot reference a table distributed by customer). Revoked keys stay, so that ids are
-- not reused.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    customer_id TEXT,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);

-- The customers a partner key created or connected: exactly those it acts for, and
-- when (NULL for links older than schema 9).
CREATE TABLE api_key_customers (
    key_id TEXT NOT NULL REFERENCES api_keys(id),
    customer_id TEXT NOT NULL REFERENCES customers(id),
    connected_at TEXT,
    PRIMARY KEY (key_id, customer_id)
) WITHOUT ROWID;

-- Failed logins, for the login throttle (DECISIONS, "Logins"): `subject` is
-- `key:<key id>` or `account:<SHA-256 of the e-mail in lower case, in hex>` (unknown
-- e-mails are counted too, and an e-mail of any length makes a short row);
-- `last_failure_at` is in Unix seconds. A row is forgotten a quiet period after its
-- last failure.
CREATE TABLE login_failures (
    subject TEXT PRIMARY KEY,
    failures INTEGER NOT NULL CHECK (failures > 0),
    last_failure_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX login_failures_by_time ON login_failures (last_failure_at);

-- The answers kept for the Idempotency-Key header of a POST (kept.rs): per owner (the
-- customer of the path, or for create and connect customer `key:<partner key id>`) and
-- key, the SHA-256 of the request (method, path and query, body) in hex, and the answer
-- given, for 24 hours from `created_at` (Unix seconds).
CREATE TABLE request_answers (
    owner TEXT NOT NULL,
    key TEXT NOT NULL,
    request TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (owner, key)
) WITHOUT ROWID;
CREATE INDEX request_answers_by_time ON request_answers (created_at);

-- The event feed (events.rs): each change of a customer's data appends its
-- events in the transaction of the change: numbered per customer from 1 (`id`, the
-- customer's newest + 1, so in commit order), with the type's name and its bit (the
-- type filter tests `type_bit`), the id of what changed, the time of the change and the
-- subject's view after it (`data`, JSON). Kept 90 days; the purge keeps each customer's
-- newest event, which numbers the next. A rowid table: the purge walks the rowids, the
-- order events were written in, from the oldest.
CREATE TABLE events (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id INTEGER NOT NULL,
    type TEXT NOT NULL,
    type_bit INTEGER NOT NULL,
    subject_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
);

-- Webhook endpoints and their deliveries (webhooks.rs). An endpoint takes a customer's
-- events of the types of `type_mask` (bits as events.type_bit) in order: `cursor` is the
-- number of the last event it has, or skipped by its filter. Its signing secret is
-- sealed at rest; after a rotation the previous one signs too until `previous_until`.
-- `attempts` counts the failed attempts of the next event, retried at `next_attempt_at`;
-- past the last retry the endpoint is `disabled`. A server delivering an event holds the
-- endpoint until `claimed_until`, so that no other delivers it at once; `revision`
-- counts the customer's changes to the endpoint, so that an attempt that ran across one
-- does not move its cursor. `test_requested_at`: a test message is to be sent.
CREATE TABLE webhooks (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id TEXT NOT NULL,
    url TEXT NOT NULL,
    description TEXT NOT NULL,
    types TEXT NOT NULL,
    type_mask INTEGER NOT NULL,
    format TEXT NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_until TEXT,
    status TEXT NOT NULL,
    disabled_reason TEXT,
    cursor INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT,
    failing_since TEXT,
    claimed_until TEXT,
    test_requested_at TEXT,
    revision INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
) WITHOUT ROWID;
-- Every attempt to deliver a message to an endpoint, numbered per endpoint (`seq`);
-- `event_id` is null for a test message. Kept as long as events.
CREATE TABLE webhook_deliveries (
    customer_id TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    message_id TEXT NOT NULL,
    event_id INTEGER,
    attempt INTEGER NOT NULL,
    attempted_at TEXT NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms INTEGER NOT NULL,
    PRIMARY KEY (customer_id, webhook_id, seq)
) WITHOUT ROWID;
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (attempted_at);

-- Lookup tables: a value unique or looked up across customers, and the customer (and
-- row) it belongs to, written in the same transaction as that row. No foreign keys:
-- each can be a reference table or a table distributed by its own first column.

-- Registration refuses an e-mail registered by any customer; login finds the customer
-- by it. `email_key` is the lower-cased e-mail, as customers.email_key.
CREATE TABLE customer_emails (
    email_key TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL
) WITHOUT ROWID;

-- The pieces' tracking numbers, by which the carrier feed finds a shipment. Not unique:
-- two carriers' numbers may coincide, and the feed takes the first of its carrier.
CREATE TABLE tracking_numbers (
    tracking_number TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    piece_index INTEGER NOT NULL,
    PRIMARY KEY (tracking_number, customer_id, book_number, piece_index)
) WITHOUT ROWID;

-- The return labels' tracking numbers: unique across customers, and scanned by the
-- carrier feed.
CREATE TABLE return_tracking_numbers (
    tracking_number TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL
) WITHOUT ROWID;
