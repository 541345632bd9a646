-- Schema 10: the quoted shipments each customer stored on its last day of quoting (UTC),
-- checked against the cap of quoted shipments per day before a quote request is priced.
-- One row per customer, replaced when a new day starts: counting the day's rows of
-- `quoted_shipments` would cost an index on every quote stored. Quotes stored before
-- this upgrade are not counted.
CREATE TABLE quote_days (
    customer_id TEXT PRIMARY KEY REFERENCES customers(id),
    day TEXT NOT NULL,                       -- YYYY-MM-DD, UTC
    shipments INTEGER NOT NULL
) WITHOUT ROWID;
