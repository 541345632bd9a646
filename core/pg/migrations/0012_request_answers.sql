-- Schema 12: the answers kept for the Idempotency-Key header of a POST; the twin of
-- core/migrations/0012_request_answers.sql.
CREATE TABLE request_answers (
    owner TEXT COLLATE "C" NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    request TEXT COLLATE "C" NOT NULL,
    status BIGINT NOT NULL,
    body TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (owner, key)
);
CREATE INDEX request_answers_by_time ON request_answers (created_at);
