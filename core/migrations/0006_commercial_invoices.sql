-- Schema 6: the commercial invoice of a booking that carries `commercialInvoice` (4.5):
-- what it prints (documents::InvoiceData as JSON, so that it renders the same later),
-- whether it was to be sent electronically, and the PDF when rendered at booking (NULL
-- with lazy labels: rendered on retrieval, as labels are).
CREATE TABLE commercial_invoices (
    customer_id TEXT NOT NULL,
    book_number TEXT NOT NULL,
    send_electronically INTEGER NOT NULL CHECK (send_electronically IN (0, 1)),
    data TEXT NOT NULL,
    pdf BLOB,
    PRIMARY KEY (customer_id, book_number),
    FOREIGN KEY (customer_id, book_number) REFERENCES shipments(customer_id, book_number)
);
