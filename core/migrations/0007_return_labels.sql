-- Schema 7: the scan-based return label of a carrier B booking (4.5,
-- `scanBasedReturnLabel`): its own tracking number, the address it goes back to
-- (wire::ViewAddress as JSON), its price on the reversed route fixed at booking (in the
-- shipment's currency, and in USD cents as the ledger charges it), and when it was first
-- scanned and so charged (NULL while unused: nothing is charged before).
CREATE TABLE return_labels (
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    tracking_number TEXT NOT NULL UNIQUE,
    return_to TEXT NOT NULL,
    zone TEXT NOT NULL,
    total_amount TEXT NOT NULL,
    cost_cents INTEGER NOT NULL CHECK (cost_cents >= 0),
    used_at TEXT,
    PRIMARY KEY (customer_id, book_number),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);
