-- Schema 16: the event feed; the twin of core/migrations/0016_events.sql. Where SQLite
-- walks its rowids, the purge finds the oldest events by `events_by_time`.
CREATE TABLE events (
    customer_id TEXT COLLATE "C" NOT NULL REFERENCES customers(id),
    id BIGINT NOT NULL,
    type TEXT COLLATE "C" NOT NULL,
    type_bit BIGINT NOT NULL,
    subject_id TEXT COLLATE "C" NOT NULL,
    created_at TEXT COLLATE "C" NOT NULL,
    data TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (customer_id, id)
);
CREATE INDEX events_by_time ON events (created_at);
