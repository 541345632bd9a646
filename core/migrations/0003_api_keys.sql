-- Schema 3: API keys of the HTTP interface (`consign serve`, DECISIONS 9), issued by
-- `consign keys create`. A key is stored only as the SHA-256 digest of its secret.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    digest BLOB NOT NULL,
    customer_id TEXT REFERENCES customers(id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);

CREATE TABLE api_key_customers (
    key_id TEXT NOT NULL REFERENCES api_keys(id),
    customer_id TEXT NOT NULL REFERENCES customers(id),
    PRIMARY KEY (key_id, customer_id)
) WITHOUT ROWID;
