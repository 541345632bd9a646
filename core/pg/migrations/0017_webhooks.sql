-- Schema 17: webhook endpoints and their deliveries; the twin of
-- core/migrations/0017_webhooks.sql.
CREATE TABLE webhooks (
    customer_id TEXT COLLATE "C" NOT NULL REFERENCES customers(id),
    id TEXT COLLATE "C" NOT NULL,
    url TEXT COLLATE "C" NOT NULL,
    description TEXT COLLATE "C" NOT NULL,
    types TEXT COLLATE "C" NOT NULL,
    type_mask BIGINT NOT NULL,
    format TEXT COLLATE "C" NOT NULL,
    secret TEXT COLLATE "C" NOT NULL,
    previous_secret TEXT COLLATE "C",
    previous_until TEXT COLLATE "C",
    status TEXT COLLATE "C" NOT NULL,
    disabled_reason TEXT COLLATE "C",
    cursor BIGINT NOT NULL,
    attempts BIGINT NOT NULL,
    next_attempt_at TEXT COLLATE "C",
    failing_since TEXT COLLATE "C",
    claimed_until TEXT COLLATE "C",
    test_requested_at TEXT COLLATE "C",
    revision BIGINT NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (customer_id, id)
);
CREATE TABLE webhook_deliveries (
    customer_id TEXT COLLATE "C" NOT NULL,
    webhook_id TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL,
    message_id TEXT COLLATE "C" NOT NULL,
    event_id BIGINT,
    attempt BIGINT NOT NULL,
    attempted_at TEXT COLLATE "C" NOT NULL,
    status_code BIGINT,
    error TEXT COLLATE "C",
    duration_ms BIGINT NOT NULL,
    PRIMARY KEY (customer_id, webhook_id, seq)
);
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (attempted_at);
