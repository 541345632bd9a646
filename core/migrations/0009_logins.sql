-- Schema 9: failed logins (connect customer, and create customer with a registered
-- e-mail) counted per account and per API key, for the login throttle (DECISIONS,
-- "Logins"); and when a partner key was connected to a customer (NULL for links made
-- before this schema).
CREATE TABLE login_failures (
    subject TEXT PRIMARY KEY,
    failures INTEGER NOT NULL CHECK (failures > 0),
    last_failure_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX login_failures_by_time ON login_failures (last_failure_at);

CREATE TABLE api_key_customers_9 (
    key_id TEXT NOT NULL REFERENCES api_keys(id),
    customer_id TEXT NOT NULL REFERENCES customers(id),
    connected_at TEXT,
    PRIMARY KEY (key_id, customer_id)
) WITHOUT ROWID;
INSERT INTO api_key_customers_9 (key_id, customer_id) SELECT key_id, customer_id FROM api_key_customers;
DROP TABLE api_key_customers;
ALTER TABLE api_key_customers_9 RENAME TO api_key_customers;
