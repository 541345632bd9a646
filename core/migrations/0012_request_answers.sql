-- Schema 12: the answers kept for the Idempotency-Key header of a POST (kept.rs): per
-- owner (the customer of the path, or for create and connect customer `key:<partner
-- key id>`) and key, the SHA-256 of the request (method, path and query, body) in hex,
-- and the answer given, for 24 hours from `created_at` (Unix seconds).
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
