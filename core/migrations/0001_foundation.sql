-- Schema 1: the catalog document, customers, their prepay ledger, payment method,
-- provider accounts, integrations and integrated quoting options.

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

CREATE TABLE customers (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL UNIQUE,          -- lower-cased e-mail: logins are case-insensitive
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

-- Append-only: rows are inserted, never updated or deleted. Money in cents.
CREATE TABLE ledger_entries (
    id INTEGER PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    kind TEXT NOT NULL CHECK (kind IN ('recharge', 'charge', 'refund')),
    amount_cents INTEGER NOT NULL,
    balance_after_cents INTEGER NOT NULL CHECK (balance_after_cents >= 0),
    reference TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX ledger_entries_by_customer ON ledger_entries(customer_id, id);

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
    id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    provider_code TEXT NOT NULL,
    account_number TEXT NOT NULL,
    fields TEXT NOT NULL,                    -- JSON object of the carrier's fields
    created_at TEXT NOT NULL,
    UNIQUE (customer_id, provider_code, account_number)
);

CREATE TABLE integrations (
    id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL
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
