-- Schema 17: webhook endpoints and their deliveries (webhooks.rs). An endpoint takes a
-- customer's events of the types of `type_mask` (bits as events.type_bit) in order:
-- `cursor` is the number of the last event it has, or skipped by its filter. Its
-- signing secret is sealed at rest; after a rotation the previous one signs too until
-- `previous_until`. `attempts` counts the failed attempts of the next event, retried at
-- `next_attempt_at`; past the last retry the endpoint is `disabled`. A server delivering
-- an event holds the endpoint until `claimed_until`, so that no other delivers it at
-- once; `revision` counts the customer's changes to the endpoint, so that an attempt
-- that ran across one does not move its cursor. `test_requested_at`: a test message is
-- to be sent.
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
