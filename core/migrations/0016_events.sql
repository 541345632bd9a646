-- Schema 16: the event feed (events.rs). Each change of a customer's data appends its
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
