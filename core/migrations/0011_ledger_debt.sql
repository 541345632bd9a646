-- Schema 11: a carrier's charge (a return label's first scan) is recorded even when the
-- prepay balance cannot pay it, so a balance may be negative: a debt, which bookings
-- wait for a recharge to cover (ledger.rs). SQLite cannot drop a CHECK in place, so the
-- table is copied without the one on `balance_after_cents`; its rows and its
-- append-only triggers are kept as they were.
CREATE TABLE ledger_entries_with_debt (
    customer_id TEXT NOT NULL REFERENCES customers(id),
    id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('recharge', 'charge', 'refund')),
    amount_cents INTEGER NOT NULL,
    balance_after_cents INTEGER NOT NULL,
    reference TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, id)
) WITHOUT ROWID;
INSERT INTO ledger_entries_with_debt (customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at)
    SELECT customer_id, id, kind, amount_cents, balance_after_cents, reference, created_at FROM ledger_entries;
DROP TRIGGER ledger_entries_append_only_update;
DROP TRIGGER ledger_entries_append_only_delete;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_with_debt RENAME TO ledger_entries;
CREATE TRIGGER ledger_entries_append_only_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
CREATE TRIGGER ledger_entries_append_only_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END;
